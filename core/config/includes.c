#include <config.h>

#include "includes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/error.h"

/* libconfig's scanner states, as far as they decide where a directive may
 * stand: code, a "string" (which may span lines), a block comment, a line
 * comment.  The state runs on from an included file into the rest of the
 * including one, as libconfig's does. */
enum lex { LEX_CODE, LEX_STRING, LEX_BLOCK, LEX_LINE };

struct expand {
	struct cfgsource *src;
	char *out;
	size_t len, cap;
	unsigned out_line; /* the line of out that the next byte goes on */
	size_t read;       /* bytes read of every file so far */
	int includes;      /* directives so far */
	enum lex state;
	muster_error *err;
};

/* Where a file is named: the top-level file (`from` NULL), else the
 * directive that includes it. */
struct origin {
	const char *from;
	unsigned line;
	const char *written;
};

static int fail(struct expand *x, const struct origin *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct expand *x, const struct origin *o, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!o->from)
		return error_set(x->err, MUSTER_ECONFIG, "%s", what);
	return error_set(x->err, MUSTER_ECONFIG, "%s:%u: @include \"%s\": %s", o->from, o->line,
	                 o->written, what);
}

static int too_big(struct expand *x, const struct origin *o, const char *path, long long size)
{
	if (size > CONFIG_MAX_BYTES)
		return fail(x, o, "%s: %lld bytes is larger than %d", path, size, CONFIG_MAX_BYTES);
	return fail(x, o, "%s: %lld bytes more would make the config, with what it includes, "
	            "larger than %d bytes", path, size, CONFIG_MAX_BYTES);
}

/* `path` opened for reading, checked first: a regular file (stat before
 * open, so that nothing else is even opened) within what the cap leaves;
 * *size its size then. */
static int open_checked(struct expand *x, const struct origin *o, const char *path, int *fd,
                        size_t *size)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return fail(x, o, "cannot read %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(x, o, "cannot read %s: not a regular file", path);
	if (st.st_size > (off_t)(CONFIG_MAX_BYTES - x->read))
		return too_big(x, o, path, (long long)st.st_size);
	/* Non-blocking: a FIFO put in its place since the stat must not hang. */
	if ((*fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return fail(x, o, "cannot read %s: %s", path, strerror(errno));
	if (fstat(*fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(*fd);
		return fail(x, o, "cannot read %s: not a regular file", path);
	}
	*size = (size_t)st.st_size;
	return 0;
}

/* All of fd, at most `left` bytes: the size is a hint (a file in /proc
 * says 0, a file may grow), so it reads until the end, or one byte past
 * `left` (*n > left: too big). */
static int read_capped(struct expand *x, const struct origin *o, const char *path, int fd,
                       size_t hint, size_t left, char **buf, size_t *n)
{
	size_t cap = (hint < left ? hint : left) + 1, got = 0;
	char *b = malloc(cap);
	for (;;) {
		if (b && got == cap && cap <= left) {
			size_t more = cap * 2 <= left + 1 ? cap * 2 : left + 1;
			char *grown = realloc(b, more);
			if (!grown)
				free(b);
			b = grown;
			cap = more;
		}
		if (!b)
			return error_set(x->err, MUSTER_ENOMEM, "out of memory");
		if (got == cap)
			break;
		ssize_t r = read(fd, b + got, cap - got);
		if (r == 0)
			break;
		if (r > 0) {
			got += (size_t)r;
		} else if (errno != EINTR) {
			free(b);
			return fail(x, o, "cannot read %s: %s", path, strerror(errno));
		}
	}
	*buf = b;
	*n = got;
	return 0;
}

/* The whole of `path`, checked before a byte of it is read. */
static int read_checked(struct expand *x, const struct origin *o, const char *path, char **buf,
                        size_t *n)
{
	size_t left = CONFIG_MAX_BYTES - x->read, size;
	int fd, rc = open_checked(x, o, path, &fd, &size);
	if (rc < 0)
		return rc;
	rc = read_capped(x, o, path, fd, size, left, buf, n);
	close(fd);
	if (rc < 0)
		return rc;
	if (*n > left) {
		free(*buf);
		return too_big(x, o, path, (long long)*n);
	}
	/* libconfig reads a string, which would end at a NUL byte. */
	const char *nul = memchr(*buf, '\0', *n);
	if (nul) {
		unsigned line = 1;
		for (const char *p = *buf; p < nul; p++)
			line += *p == '\n';
		free(*buf);
		return fail(x, o, "%s:%u: a NUL byte: not a text file", path, line);
	}
	x->read += *n;
	return 0;
}

static int emit(struct expand *x, const char *p, size_t n)
{
	if (x->len + n + 1 > x->cap) {
		size_t cap = x->cap ? x->cap : 4096;
		while (cap < x->len + n + 1)
			cap *= 2;
		char *out = realloc(x->out, cap);
		if (!out)
			return error_set(x->err, MUSTER_ENOMEM, "out of memory");
		x->out = out;
		x->cap = cap;
	}
	memcpy(x->out + x->len, p, n);
	x->len += n;
	x->out[x->len] = '\0';
	for (const char *nl = p; (nl = memchr(nl, '\n', (size_t)(p + n - nl))) != NULL; nl++)
		x->out_line++;
	return 0;
}

/* At a line's start: the index just past `[ \t]*@include[ \t]+"`, the
 * opening of a directive as libconfig's scanner matches it, else 0. */
static size_t directive_open(const char *b, size_t n, size_t i)
{
	while (i < n && (b[i] == ' ' || b[i] == '\t'))
		i++;
	if (n - i < 9 || memcmp(b + i, "@include", 8) != 0 || (b[i + 8] != ' ' && b[i + 8] != '\t'))
		return 0;
	for (i += 8; i < n && (b[i] == ' ' || b[i] == '\t'); i++) {
	}
	return i < n && b[i] == '"' ? i + 1 : 0;
}

/* The directive's path from b[i] on, as libconfig's scanner reads it: \\
 * and \" stand for themselves, any other backslash is dropped.  The index
 * past the closing quote, or 0 without one; the lines the path spans are
 * added to *line. */
static size_t directive_path(const char *b, size_t n, size_t i, char *path, unsigned *line)
{
	size_t len = 0;
	for (; i < n && b[i] != '"'; i++) {
		if (b[i] == '\\') {
			if (i + 1 < n && (b[i + 1] == '\\' || b[i + 1] == '"'))
				path[len++] = b[++i];
			continue;
		}
		*line += b[i] == '\n';
		path[len++] = b[i];
	}
	path[len] = '\0';
	return i < n ? i + 1 : 0;
}

/* `written` as the file `from` names it: absolute as it is, relative
 * against from's directory. */
static char *resolve(const char *from, const char *written)
{
	const char *slash = strrchr(from, '/');
	size_t dir = written[0] == '/' || !slash ? 0 : (size_t)(slash - from) + 1;
	char *full = malloc(dir + strlen(written) + 1);
	if (full) {
		memcpy(full, from, dir);
		strcpy(full + dir, written);
	}
	return full;
}

static int expand_file(struct expand *x, const struct origin *o, const char *path, int depth);

/* The directive of `from` whose path starts at b[open], on line *line:
 * the file it names, expanded in its place.  *next: the index past it. */
static int include(struct expand *x, const char *from, const char *b, size_t n, size_t open,
                   unsigned *line, int depth, size_t *next)
{
	unsigned at_line = *line;
	char *written = malloc(n - open + 1), *full = NULL;
	if (!written)
		return error_set(x->err, MUSTER_ENOMEM, "out of memory");
	*next = directive_path(b, n, open, written, line);
	struct origin o = {from, at_line, written};
	int rc;
	if (!*next)
		rc = error_set(x->err, MUSTER_ECONFIG, "%s:%u: @include without its closing quote",
		               from, at_line);
	else if (depth >= CONFIG_MAX_INCLUDE_DEPTH)
		rc = fail(x, &o, "includes nested deeper than %d", CONFIG_MAX_INCLUDE_DEPTH);
	else if (++x->includes > CONFIG_MAX_INCLUDES)
		rc = fail(x, &o, "more than %d @include directives in all", CONFIG_MAX_INCLUDES);
	else if (!(full = resolve(from, written)))
		rc = error_set(x->err, MUSTER_ENOMEM, "out of memory");
	else
		rc = expand_file(x, &o, full, depth + 1);
	free(full);
	free(written);
	return rc;
}

static int expand_file(struct expand *x, const struct origin *o, const char *path, int depth)
{
	char *b;
	size_t n;
	int rc = read_checked(x, o, path, &b, &n);
	if (rc < 0)
		return rc;
	long file = cfgsource_add_file(x->src, path);
	if (file < 0 || cfgsource_span(x->src, x->out_line, (size_t)file, 1) < 0) {
		free(b);
		return error_set(x->err, MUSTER_ENOMEM, "out of memory");
	}
	/* The file in place of its path: messages and settings name it so. */
	const char *name = x->src->files[file];
	unsigned line = 1;
	size_t copied = 0, open;
	int bol = 1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (bol && x->state == LEX_CODE && (open = directive_open(b, n, i))) {
			size_t next;
			if ((rc = emit(x, b + copied, i - copied)) < 0 ||
			    (rc = include(x, name, b, n, open, &line, depth, &next)) < 0)
				break;
			/* The rest of the line follows on a line of its own, so
			 * that it keeps its number, unless the included file
			 * ended inside a string or a block comment. */
			if (x->state == LEX_LINE)
				x->state = LEX_CODE;
			if (x->state == LEX_CODE && x->len && x->out[x->len - 1] != '\n')
				rc = emit(x, "\n", 1);
			if (rc == 0 && cfgsource_span(x->src, x->out_line, (size_t)file, line) < 0)
				rc = error_set(x->err, MUSTER_ENOMEM, "out of memory");
			copied = next;
			i = next - 1;
			bol = 0;
			continue;
		}
		char c = b[i], d = i + 1 < n ? b[i + 1] : '\0';
		switch (x->state) {
		case LEX_CODE:
			if (c == '"')
				x->state = LEX_STRING;
			else if (c == '#')
				x->state = LEX_LINE;
			else if (c == '/' && d == '/')
				x->state = LEX_LINE;
			else if (c == '/' && d == '*') {
				x->state = LEX_BLOCK;
				i++; /* its star cannot also close it */
			}
			break;
		case LEX_STRING:
			if (c == '\\' && (d == '"' || d == '\\'))
				i++;
			else if (c == '"')
				x->state = LEX_CODE;
			break;
		case LEX_BLOCK:
			if (c == '*' && d == '/') {
				x->state = LEX_CODE;
				i++;
			}
			break;
		case LEX_LINE:
			if (c == '\n')
				x->state = LEX_CODE;
			break;
		}
		bol = b[i] == '\n';
		line += bol;
	}
	if (rc == 0)
		rc = emit(x, b + copied, n - copied);
	free(b);
	return rc;
}

int includes_expand(const char *path, char **text, struct cfgsource *src, muster_error *err)
{
	struct expand x = {.src = src, .out_line = 1, .state = LEX_CODE, .err = err};
	struct origin top = {NULL, 0, NULL};
	int rc = expand_file(&x, &top, path, 0);
	if (rc == 0 && !x.out)
		rc = emit(&x, "", 0);
	if (rc < 0) {
		free(x.out);
		return rc;
	}
	*text = x.out;
	return 0;
}

#if LIBCONFIG_VER_MAJOR > 1 || (LIBCONFIG_VER_MAJOR == 1 && LIBCONFIG_VER_MINOR >= 7)
static const char **refuse(config_t *cfg, const char *dir, const char *path, const char **error)
{
	(void)cfg;
	(void)dir;
	(void)path;
	*error = "@include must begin a line";
	return NULL;
}

void includes_refuse(config_t *cfg)
{
	config_set_include_func(cfg, refuse);
}
#else
void includes_refuse(config_t *cfg)
{
	/* libconfig 1.5 opens "<include dir>/<path>": under a file, nothing. */
	config_set_include_dir(cfg, "/dev/null");
}
#endif
