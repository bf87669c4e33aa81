/* The request line and the header's end of an HTTP/1.x request (RFC 9112
 * sections 2 and 3): `METHOD SP TARGET SP HTTP/1.D`, then header fields,
 * each `NAME: value`, until an empty line.  Fields are checked for their
 * shape (a token, a colon, no control bytes) and not kept: the server
 * answers from the method and the path alone. */
#include <config.h>

#include "http_request.h"

#include <string.h>

/* RFC 9110's tchar. */
static int is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* The end of the header: the byte after its empty line, or 0. */
static size_t header_end(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* The line from `*at` (its end without CR LF in *end, the next line's
 * start returned). */
static size_t next_line(const char *buf, size_t at, size_t len, size_t *end)
{
	const char *nl = memchr(buf + at, '\n', len - at);
	size_t e = nl ? (size_t)(nl - buf) : len;
	*end = e > at && buf[e - 1] == '\r' ? e - 1 : e;
	return nl ? e + 1 : len;
}

static enum http_parse request_line(const char *s, size_t n, struct http_request *req)
{
	size_t i = 0, m, t;

	while (i < n && is_tchar((unsigned char)s[i]))
		i++;
	if (i == 0 || i >= n || s[i] != ' ')
		return HTTP_BAD;
	m = i;
	t = ++i;
	/* The target: visible ASCII (RFC 3986's characters are a subset). */
	while (i < n && (unsigned char)s[i] > 0x20 && (unsigned char)s[i] < 0x7f)
		i++;
	if (i == t || i >= n || s[i] != ' ')
		return HTTP_BAD;
	size_t target_len = i - t, path_len = target_len;
	const char *q = memchr(s + t, '?', target_len);
	if (q)
		path_len = (size_t)(q - (s + t));
	i++;
	if (n - i != 8 || memcmp(s + i, "HTTP/1.", 7) != 0 || s[i + 7] < '0' || s[i + 7] > '9')
		return HTTP_BAD;
	if (path_len >= sizeof(req->path))
		return HTTP_BAD;
	if (m < sizeof(req->method)) {
		memcpy(req->method, s, m);
		req->method[m] = '\0';
	} else {
		req->method[0] = '\0';
	}
	memcpy(req->path, s + t, path_len);
	req->path[path_len] = '\0';
	req->minor = s[i + 7] - '0';
	return HTTP_COMPLETE;
}

/* NAME: value, NAME a token, the value free of control bytes but tab. */
static int field_ok(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && is_tchar((unsigned char)s[i]))
		i++;
	if (i == 0 || i >= n || s[i] != ':')
		return 0;
	for (i++; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return 0;
	}
	return 1;
}

enum http_parse http_parse_request(const char *buf, size_t len, size_t max,
                                   struct http_request *req)
{
	size_t end = header_end(buf, len < max ? len : max), at = 0, line_end;

	if (end == 0)
		return len >= max ? HTTP_TOO_LARGE : HTTP_NEED_MORE;
	at = next_line(buf, 0, end, &line_end);
	struct http_request r;
	memset(&r, 0, sizeof(r));
	if (request_line(buf, line_end, &r) != HTTP_COMPLETE)
		return HTTP_BAD;
	for (;;) {
		size_t start = at;
		at = next_line(buf, at, end, &line_end);
		if (line_end == start)
			break; /* the empty line */
		if (!field_ok(buf + start, line_end - start))
			return HTTP_BAD;
	}
	r.header_len = end;
	*req = r;
	return HTTP_COMPLETE;
}
