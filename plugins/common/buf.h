/* A growable, bounded, NUL-terminated byte buffer (HTTP bodies, files) and
 * the small system helpers the bundled plugins share: a bounded file read
 * and its failure in words, asprintf, strerror. */
#ifndef MUSTER_PLUGIN_COMMON_BUF_H
#define MUSTER_PLUGIN_COMMON_BUF_H

#include <stddef.h>

struct pbuf {
	char *data;
	size_t len, cap, max;
	int overflow;          /* an append would have passed `max` */
};

void pbuf_init(struct pbuf *b, size_t max);
/* 0, or -1 when out of memory or past `max` (then overflow is set). */
int pbuf_append(struct pbuf *b, const void *p, size_t n);
/* Room for `n` more bytes at the end (NULL as pbuf_append fails), then
 * how many of them were written. */
char *pbuf_room(struct pbuf *b, size_t n);
void pbuf_wrote(struct pbuf *b, size_t n);
void pbuf_reset(struct pbuf *b);
void pbuf_free(struct pbuf *b);
/* Zeroes the bytes before freeing them: tokens and keys. */
void pbuf_wipe(struct pbuf *b);

/* A whole regular file of at most `max` bytes, NUL-terminated; -1 with
 * errno (EFBIG past max, EISDIR/EINVAL for what is not a regular file).
 * Opened non-blocking, so a FIFO at the path cannot hang the call. */
int plugin_read_file(const char *path, size_t max, char **data, size_t *len);
/* Why plugin_read_file(path, max, ...) failed with errno `err`, in words
 * for a reason: what is not a regular file by its kind ("not a regular
 * file but a character device"), past `max` its size ("larger than 16
 * MiB"), else strerror's text.  Returns buf. */
const char *plugin_read_error(const char *path, int err, size_t max, char *buf, size_t size);

char *plugin_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* strerror, thread-safe. */
const char *plugin_strerror(int err, char *buf, size_t size);

#endif
