/*
 * A tiny HTTP/1.1 server for one resource (a /metrics page), driven by its
 * owner's poll() loop: it adds its descriptors to the owner's pollfd array
 * and handles what they report.  Every socket is non-blocking; one request
 * per connection (answered with Connection: close); GET and HEAD of the
 * path get the body the owner renders, another path 404, another method
 * 405, anything else 400 or 431.  Bounded whatever clients do: at most
 * HTTPD_MAX_CONNS connections (a newcomer evicts the oldest), a request
 * header of at most HTTPD_MAX_REQUEST bytes, HTTPD_TIMEOUT_MS for a
 * connection's whole life, a body of at most HTTPD_MAX_BODY bytes, a
 * bounded number of accepts and bytes per round.  So a hostile client
 * costs the owner's loop a little memory and time, never a stall.
 */
#ifndef MUSTER_LIB_HTTPD_H
#define MUSTER_LIB_HTTPD_H

#include <poll.h>
#include <stddef.h>
#include <stdio.h>

#define HTTPD_MAX_CONNS 16
#define HTTPD_MAX_REQUEST 8192
#define HTTPD_TIMEOUT_MS 5000
#define HTTPD_MAX_BODY ((size_t)1 << 20)

struct httpd;

/* Writes the resource's body to `out`: 0, or -1 (a 500). */
typedef int (*httpd_render_fn)(FILE *out, void *data);

/* Listens on `host` (NULL: 127.0.0.1; a name or an address, "::" for
 * every interface) and `port` (0: any free one) for GET `path`, whose
 * body is `content_type` and rendered by render(out, data) per request.
 * 0, or -1 with the reason in `why`. */
int httpd_open(struct httpd **out, const char *host, int port, const char *path,
               const char *content_type, httpd_render_fn render, void *data, char *why,
               size_t whylen);
/* The port it listens on. */
int httpd_port(const struct httpd *h);
/* "HOST:PORT" it listens on ("[::1]:9400" for IPv6), for messages. */
const char *httpd_address(const struct httpd *h);

/* How many pollfd slots httpd_poll() fills: 1 + its connections. */
size_t httpd_nfds(const struct httpd *h);
/* Fills p[0 .. httpd_nfds()) for the owner's poll(), and lowers
 * *timeout_ms (-1: none yet) to its next deadline. */
void httpd_poll(struct httpd *h, struct pollfd *p, int *timeout_ms);
/* After poll(): handles what p[0 .. n) (as httpd_poll() filled them)
 * reports, and closes connections past their time. */
void httpd_service(struct httpd *h, const struct pollfd *p, size_t n);

void httpd_free(struct httpd *h);

#endif
