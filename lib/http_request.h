/* The request of a tiny HTTP/1.x server (httpd.h): its request line and
 * the end of its header, from bytes a client sent.  Untrusted input: the
 * parser reads only within `len`, copies only what fits its fields, and
 * takes no more than the bytes it is given (tests/fuzz/http_request.c). */
#ifndef MUSTER_LIB_HTTP_REQUEST_H
#define MUSTER_LIB_HTTP_REQUEST_H

#include <stddef.h>

/* The longest method and path kept; longer ones are a bad request (a
 * path), or not a method the server knows (a method). */
#define HTTP_METHOD_MAX 16
#define HTTP_PATH_MAX 256

enum http_parse {
	HTTP_NEED_MORE = 0, /* no end of the header yet */
	HTTP_COMPLETE = 1,  /* the request line and header are all there */
	HTTP_BAD = 2,       /* not an HTTP/1.x request: 400 */
	HTTP_TOO_LARGE = 3  /* no end of the header within `max` bytes: 431 */
};

struct http_request {
	char method[HTTP_METHOD_MAX]; /* "GET"; "" when longer than it holds */
	char path[HTTP_PATH_MAX];     /* the target up to its query: "/metrics" */
	int minor;                    /* HTTP/1.minor */
	size_t header_len;            /* bytes up to and with the blank line */
};

/* Looks at the `len` bytes a client has sent so far; a header may take at
 * most `max` bytes.  Lines end in CRLF, or LF alone (RFC 9112 allows
 * it).  Only a COMPLETE answer fills *req. */
enum http_parse http_parse_request(const char *buf, size_t len, size_t max,
                                   struct http_request *req);

#endif
