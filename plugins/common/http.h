/* libcurl as every HTTP backend uses it: one handle set up alike, request
 * limits from the call's budget, status wording, retry waits, and request
 * headers that carry a bearer token without leaving it in memory. */
#ifndef MUSTER_PLUGIN_COMMON_HTTP_H
#define MUSTER_PLUGIN_COMMON_HTTP_H

#include <stddef.h>

#include <curl/curl.h>

/* curl_global_init, once per process (it is not thread-safe before
 * libcurl 7.84); its result each time. */
CURLcode http_global_init(void);
/* A new handle: no signals, errors into `errbuf` (CURL_ERROR_SIZE), our
 * User-Agent, no redirects, Nagle off, http and https only.  NULL: out of
 * memory. */
CURL *http_handle(char *errbuf);
/* The limit of one request given `left_ms` of the call's budget: a little
 * short of it, so that "timed out", with the URL, still arrives in time;
 * at most `cap_ms` when that is > 0; at least 1. */
long http_limit_ms(long left_ms, long cap_ms);
/* The whole request and its connection bounded by `ms`. */
void http_set_timeout(CURL *h, long ms);

/* " Not Found" for 404 (with its space), "" for a status not known here. */
const char *http_reason(long code);
/* Whether a libcurl error is the TLS handshake's or the peer's certificate. */
int http_tls_error(CURLcode rc);
/* Worth another attempt: 429 (quota) and 5xx. */
int http_retryable(long code);
/* A Retry-After header line's seconds (an HTTP date: 1, soon); -1 when
 * the line is another header. */
long http_retry_after(const char *line, size_t len);

/* `l` with "Authorization: Bearer TOKEN" appended, the temporary copy
 * wiped; NULL (and `l` unchanged) when out of memory. */
struct curl_slist *http_bearer(struct curl_slist *l, const char *token);
/* Zeroes every header line (one may hold a token) and frees the list. */
void http_headers_free(struct curl_slist *l);

#endif
