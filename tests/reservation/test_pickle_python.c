/*
 * The codec against the machine's own Python: gen_fixtures.py pickles a set
 * of objects at every protocol into a temporary directory; each must decode
 * to the same value (compared in a canonical text form both sides write),
 * our protocol-3 encoding must equal pickletools.optimize(pickle.dumps(obj,
 * 3)) byte for byte where the object shares nothing, and Python must load
 * every encoding we write back to an equal object.  Thousands of str
 * pickles around the edges of UTF-8 must be loaded or refused as Python
 * loads or refuses them.  Skips without python3.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/test.h"

#include "pickle.h"

static char dir[64];
static char script[1024];
static bool have_python;

/* ---- canonical form (gen_fixtures.py's canon) ---- */

struct buf {
	char *s;
	size_t len, cap;
};

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		assert_true(n >= 0);
		if (b->s && (size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		b->cap = (b->cap + (size_t)n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		assert_non_null(b->s);
	}
}

static void canon(struct buf *b, const pv *v)
{
	switch (v->type) {
	case PV_NONE: put(b, "N"); break;
	case PV_BOOL: put(b, v->u.b ? "T" : "F"); break;
	case PV_INT: put(b, "i%lld", (long long)v->u.i); break;
	case PV_FLOAT: {
		uint64_t bits;
		memcpy(&bits, &v->u.f, sizeof(bits));
		put(b, "f%016llx", (unsigned long long)bits);
		break;
	}
	case PV_STR:
	case PV_BYTES:
		put(b, "%c%zu:", v->type == PV_STR ? 's' : 'b', v->u.s.len);
		for (size_t i = 0; i < v->u.s.len; i++)
			put(b, "%02x", (unsigned)(uint8_t)v->u.s.data[i]);
		break;
	case PV_LIST:
	case PV_TUPLE:
		put(b, v->type == PV_LIST ? "[" : "(");
		for (size_t i = 0; i < v->u.seq.len; i++) {
			if (i)
				put(b, ",");
			canon(b, v->u.seq.items[i]);
		}
		put(b, v->type == PV_LIST ? "]" : ")");
		break;
	case PV_DICT:
		put(b, "{");
		for (size_t i = 0; i < v->u.dict.len; i++) {
			if (i)
				put(b, ",");
			canon(b, v->u.dict.keys[i]);
			put(b, ":");
			canon(b, v->u.dict.vals[i]);
		}
		put(b, "}");
		break;
	}
}

/* ---- files and python ---- */

static uint8_t *slurp(const char *name, size_t *len)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	uint8_t *data = NULL;
	size_t cap = 0, n = 0, got;
	do {
		if (cap - n < 4096) {
			cap = cap * 2 + 4096;
			data = realloc(data, cap + 1);
			assert_non_null(data);
		}
		got = fread(data + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	data[n] = 0;
	*len = n;
	return data;
}

static void spill(const char *name, const uint8_t *data, size_t len)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static const char *python(void)
{
	const char *p = getenv("PYTHON3");
	return p && *p ? p : "python3";
}

/* Run the script with a mode; its exit status (127: could not start). */
static int run_script(const char *mode)
{
	pid_t pid = fork();
	if (pid == 0) {
		execlp(python(), python(), script, mode, dir, (char *)NULL);
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int setup(void **state)
{
	(void)state;
	const char *src = getenv("MUSTER_TEST_SRCDIR");
	snprintf(script, sizeof(script), "%s/tests/reservation/gen_fixtures.py", src ? src : ".");
	snprintf(dir, sizeof(dir), "/tmp/muster-pickle-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	have_python = access(script, R_OK) == 0 && run_script("gen") == 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- tests ---- */

static void every_protocol_matches_python(void **state)
{
	(void)state;
	if (!have_python)
		skip();
	size_t mlen;
	char *manifest = (char *)slurp("manifest", &mlen);
	size_t ok = 0, rejected = 0, exact = 0;
	char *save = NULL;
	for (char *line = strtok_r(manifest, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char kind[16], file[64], arg[64], opt3[64] = "";
		int n = sscanf(line, "%15s %63s %63s %63s", kind, file, arg, opt3);
		assert_true(n >= 3);
		size_t len;
		uint8_t *data = slurp(file, &len);
		struct pv_error err;
		pv *v = pv_decode(data, len, NULL, &err);
		if (strcmp(kind, "reject") == 0) {
			if (v)
				fail_msg("%s decoded, expected a rejection naming %s", file, arg);
			if (!strstr(err.message, arg))
				fail_msg("%s: \"%s\" does not name %s", file, err.message, arg);
			rejected++;
			free(data);
			continue;
		}
		if (!v)
			fail_msg("%s: %s", file, err.message);
		size_t clen;
		char *want = (char *)slurp(arg, &clen);
		struct buf got = {0};
		canon(&got, v);
		if (strcmp(got.s, want) != 0)
			fail_msg("%s decodes to\n  %s\nPython says\n  %s", file, got.s, want);

		uint8_t *enc;
		size_t elen;
		assert_int_equal(pv_encode(v, &enc, &elen, &err), 0);
		if (opt3[0]) {
			size_t olen;
			uint8_t *o = slurp(opt3, &olen);
			if (olen != elen || memcmp(o, enc, elen) != 0)
				fail_msg("%s: our protocol-3 bytes differ from Python's %s", file, opt3);
			free(o);
			exact++;
		}
		char ours[96];
		snprintf(ours, sizeof(ours), "%s.ours", file);
		spill(ours, enc, elen);
		free(enc);
		free(got.s);
		free(want);
		free(data);
		pv_free(v);
		ok++;
	}
	free(manifest);
	/* 12 objects x 6 protocols; bytes below protocol 3 are the rejections. */
	assert_int_equal(ok + rejected, 72);
	assert_true(rejected >= 6);
	assert_true(exact >= 40);
	/* And Python loads what we wrote back to the same objects. */
	assert_int_equal(run_script("check"), 0);
}

/* A ps executor's REG: `addr` is a memo back-reference to the host
 * string, at every protocol that can carry the registration. */
static void ps_registration_memo(void **state)
{
	(void)state;
	if (!have_python)
		skip();
	for (int proto = 0; proto <= 5; proto++) {
		char name[32];
		snprintf(name, sizeof(name), proto < 3 ? "reg_nokey.p%d" : "reg.p%d", proto);
		size_t len;
		uint8_t *data = slurp(name, &len);
		struct pv_error err;
		pv *v = pv_decode(data, len, NULL, &err);
		if (!v)
			fail_msg("%s: %s", name, err.message);
		const pv *meta = pv_dict_get_str(v, "data");
		const pv *host = pv_dict_get_str(meta, "host");
		const pv *addr = pv_dict_get_str(meta, "addr");
		assert_non_null(host);
		assert_int_equal(pv_len(addr), 2);
		/* One object, reached twice: the memo GET was honoured. */
		assert_ptr_equal(pv_seq_at(addr, 0), host);
		assert_true(pv_is_str(host, proto < 3 ? "10.0.0.5" : "10.0.0.4"));
		pv_free(v);
		free(data);
	}
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A str is loaded exactly when Python loads it, to the same text: UTF-8 by
 * CPython's rules (lone surrogates pass), ASCII for a Python 2 str. */
static void texts_match_python(void **state)
{
	(void)state;
	if (!have_python)
		skip();
	size_t tlen, ok = 0, rejected = 0;
	char *texts = (char *)slurp("texts", &tlen);
	char *save = NULL;
	for (char *line = strtok_r(texts, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *verdict = strchr(line, ' ');
		assert_non_null(verdict);
		*verdict++ = '\0';
		char *want = strchr(verdict, ' ');
		if (want)
			*want++ = '\0';
		size_t n = strlen(line) / 2;
		uint8_t *p = malloc(n ? n : 1);
		assert_non_null(p);
		for (size_t i = 0; i < n; i++)
			p[i] = (uint8_t)(hexval(line[2 * i]) << 4 | hexval(line[2 * i + 1]));
		struct pv_error err;
		pv *v = pv_decode(p, n, NULL, &err);
		if (strcmp(verdict, "reject") == 0) {
			if (v)
				fail_msg("%s: decoded, but Python refuses it", line);
			rejected++;
		} else {
			if (!v)
				fail_msg("%s: Python loads it, we say: %s", line, err.message);
			struct buf got = {0};
			canon(&got, v);
			if (!want || strcmp(got.s, want) != 0)
				fail_msg("%s decodes to %s, Python says %s", line, got.s, want ? want : "?");
			free(got.s);
			pv_free(v);
			ok++;
		}
		free(p);
	}
	free(texts);
	assert_true(ok > 100 && rejected > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_protocol_matches_python),
		cmocka_unit_test(ps_registration_memo),
		cmocka_unit_test(texts_match_python),
	};
	int failed = run_tap_tests(tests, setup, teardown);
	/* Without python3 there is nothing to compare with: skipped. */
	if (!failed && !have_python) {
		fprintf(stderr, "python3 or gen_fixtures.py not available: skipped\n");
		return 77;
	}
	return failed;
}
