/*
 * gce: small helpers — buffers, files, clocks, JSON getters, strings.
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* secure_getenv, GNU strerror_r, vasprintf */
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gce.h"

void gce_buf_init(struct gce_buf *b, size_t max)
{
	memset(b, 0, sizeof(*b));
	b->max = max;
}

int gce_buf_append(struct gce_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *q;

		if (b->len + n > b->max) {
			b->overflow = 1;
			return -1;
		}
		while (cap < b->len + n + 1)
			cap *= 2;
		q = realloc(b->data, cap);
		if (q == NULL)
			return -1;
		b->data = q;
		b->cap = cap;
	}
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

void gce_buf_reset(struct gce_buf *b)
{
	b->len = 0;
	b->overflow = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

void gce_buf_free(struct gce_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void gce_buf_wipe(struct gce_buf *b)
{
	if (b->data != NULL)
		memset(b->data, 0, b->cap);
	gce_buf_free(b);
}

int gce_read_file(const char *path, char **data, size_t *len)
{
	struct stat st;
	struct gce_buf b;
	char chunk[8192];
	int fd, saved;

	*data = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO at the path must not hang the call. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		saved = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(fd);
		errno = saved;
		return -1;
	}
	gce_buf_init(&b, GCE_MAX_FILE);
	if (gce_buf_append(&b, "", 0) < 0)
		goto fail;
	for (;;) {
		ssize_t got = read(fd, chunk, sizeof(chunk));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		if (gce_buf_append(&b, chunk, (size_t)got) < 0) {
			errno = b.overflow ? EFBIG : ENOMEM;
			goto fail;
		}
	}
	memset(chunk, 0, sizeof(chunk));
	close(fd);
	*data = b.data;
	*len = b.len;
	return 0;
fail:
	saved = errno;
	memset(chunk, 0, sizeof(chunk));
	close(fd);
	gce_buf_wipe(&b);
	errno = saved;
	return -1;
}

const char *gce_getenv(const char *name)
{
#ifdef HAVE_SECURE_GETENV
	return secure_getenv(name);
#else
	return getenv(name);
#endif
}

char *gce_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

const char *gce_basename(const char *url)
{
	const char *s = strrchr(url, '/');

	return s != NULL ? s + 1 : url;
}

long long gce_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec;
}

long long gce_wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec;
}

long gce_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void gce_sleep_ms(long ms)
{
	struct timespec ts;

	if (ms <= 0)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

const char *gce_strerror(int err, char *buf, size_t size)
{
	return strerror_r(err, buf, size); /* GNU: returns the text */
}

muster_status gce_nomem(struct gce_run *run)
{
	run->host->fail(run->call, "out of memory");
	return MUSTER_STATUS_UNAVAIL;
}

const char *gce_json_str(const cJSON *obj, const char *key)
{
	const cJSON *m = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;

	return cJSON_IsString(m) ? m->valuestring : NULL;
}

cJSON *gce_json_parse(struct gce_run *run, const char *what, const struct gce_buf *b)
{
	const char *end = NULL;
	cJSON *root;

	if (b->data == NULL || b->len == 0) {
		run->host->fail(run->call, "%s: the answer is empty", what);
		return NULL;
	}
	root = cJSON_ParseWithLengthOpts(b->data, b->len, &end, 0);
	if (root == NULL) {
		size_t at = end != NULL && end >= b->data ? (size_t)(end - b->data) : 0;

		run->host->fail(run->call, "%s: the answer is not valid JSON (error at byte %zu of %zu)",
		                what, at, b->len);
		return NULL;
	}
	if (!cJSON_IsObject(root)) {
		run->host->fail(run->call, "%s: the answer is not a JSON object", what);
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}
