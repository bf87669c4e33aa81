#include <config.h>

#include "buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void pbuf_init(struct pbuf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

char *pbuf_room(struct pbuf *b, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *q;

		if (b->len + n > b->max) {
			b->overflow = 1;
			return NULL;
		}
		while (cap < b->len + n + 1)
			cap *= 2;
		q = realloc(b->data, cap);
		if (q == NULL)
			return NULL;
		b->data = q;
		b->cap = cap;
	}
	return b->data + b->len;
}

void pbuf_wrote(struct pbuf *b, size_t n)
{
	b->len += n;
	b->data[b->len] = '\0';
}

int pbuf_append(struct pbuf *b, const void *p, size_t n)
{
	char *room = pbuf_room(b, n);

	if (room == NULL)
		return -1;
	if (n > 0)
		memcpy(room, p, n);
	pbuf_wrote(b, n);
	return 0;
}

void pbuf_reset(struct pbuf *b)
{
	b->len = 0;
	b->overflow = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

void pbuf_free(struct pbuf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void pbuf_wipe(struct pbuf *b)
{
	if (b->data != NULL)
		memset(b->data, 0, b->cap);
	pbuf_free(b);
}

int plugin_read_file(const char *path, size_t max, char **data, size_t *len)
{
	struct stat st;
	struct pbuf b;
	char chunk[8192];
	int fd, saved;

	*data = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		saved = errno;
		if (fstat(fd, &st) == 0)
			saved = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(fd);
		errno = saved;
		return -1;
	}
	/* Refused before reading when already too big; the loop still
	 * bounds a file that grows while it is read. */
	if (st.st_size > 0 && (unsigned long long)st.st_size > max) {
		close(fd);
		errno = EFBIG;
		return -1;
	}
	pbuf_init(&b, max);
	if (pbuf_append(&b, "", 0) < 0)
		goto fail;
	for (;;) {
		ssize_t got = read(fd, chunk, sizeof(chunk));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		if (pbuf_append(&b, chunk, (size_t)got) < 0) {
			errno = b.overflow ? EFBIG : ENOMEM;
			goto fail;
		}
	}
	/* The file may hold a token or a key: leave no copy behind. */
	memset(chunk, 0, sizeof(chunk));
	close(fd);
	*data = b.data;
	*len = b.len;
	return 0;
fail:
	saved = errno;
	memset(chunk, 0, sizeof(chunk));
	close(fd);
	pbuf_wipe(&b);
	errno = saved;
	return -1;
}

static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "of an unknown kind";
}

const char *plugin_read_error(const char *path, int err, size_t max, char *buf, size_t size)
{
	struct stat st;
	char text[128];

	/* The kind is looked up again: open() and fstat() saw the same path,
	 * and errno alone cannot tell a device from any other EINVAL. */
	if ((err == EISDIR || err == EINVAL) && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		snprintf(buf, size, "not a regular file but %s", file_kind(st.st_mode));
	else if (err == EFBIG && max >= ((size_t)1 << 20))
		snprintf(buf, size, "larger than %zu MiB", max >> 20);
	else if (err == EFBIG)
		snprintf(buf, size, "larger than %zu bytes", max);
	else
		snprintf(buf, size, "%s", plugin_strerror(err, text, sizeof(text)));
	return buf;
}

char *plugin_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

const char *plugin_strerror(int err, char *buf, size_t size)
{
	return strerror_r(err, buf, size); /* GNU: returns the text */
}
