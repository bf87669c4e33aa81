/* lib/http_request.c and lib/prom.c: what the metrics page takes from a
 * client, and the exposition it writes. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/test.h"

#include "lib/http_request.h"
#include "lib/prom.h"

static enum http_parse parse(const char *s, struct http_request *r)
{
	return http_parse_request(s, strlen(s), 8192, r);
}

static void requests_that_parse(void **state)
{
	struct http_request r;
	(void)state;
	const char *prom = "GET /metrics?x=1 HTTP/1.1\r\nHost: a:1\r\nAccept: */*\r\n\r\n";
	assert_int_equal(parse(prom, &r), HTTP_COMPLETE);
	assert_string_equal(r.method, "GET");
	assert_string_equal(r.path, "/metrics");
	assert_int_equal(r.minor, 1);
	assert_int_equal(r.header_len, strlen(prom));
	/* Bare LF, HTTP/1.0, a body after the header (not counted). */
	assert_int_equal(parse("HEAD / HTTP/1.0\n\nbody", &r), HTTP_COMPLETE);
	assert_string_equal(r.method, "HEAD");
	assert_int_equal(r.minor, 0);
	assert_int_equal(r.header_len, 17);
	/* A method too long to keep: parsed, named "" (so never GET). */
	assert_int_equal(parse("ABCDEFGHIJKLMNOPQRSTUVWXYZ / HTTP/1.1\r\n\r\n", &r), HTTP_COMPLETE);
	assert_string_equal(r.method, "");
}

static void requests_not_yet_whole(void **state)
{
	struct http_request r;
	const char *whole = "GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n";
	(void)state;
	/* Every prefix waits for more: a request may come a byte at a time. */
	for (size_t n = 0; n < strlen(whole); n++)
		assert_int_equal(http_parse_request(whole, n, 8192, &r), HTTP_NEED_MORE);
	/* No end of the header within the limit: too large (431). */
	assert_int_equal(http_parse_request(whole, strlen(whole), 10, &r), HTTP_TOO_LARGE);
	char *big = malloc(9000);
	assert_non_null(big);
	memset(big, 'a', 9000);
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	assert_int_equal(http_parse_request(big, 9000, 8192, &r), HTTP_TOO_LARGE);
	free(big);
}

static void hostile_requests(void **state)
{
	static const char *const bad[] = {
		"\r\nGET / HTTP/1.1\r\n\r\n",              /* a line before the request */
		"GET /metrics\r\n\r\n",                     /* HTTP/0.9 */
		"GET  /metrics HTTP/1.1\r\n\r\n",           /* two spaces */
		"GET /metrics HTTP/2.0\r\n\r\n",            /* not 1.x */
		"GET /metrics HTTP/1.1 \r\n\r\n",           /* trailing space */
		"GET /metrics HTTP/1.x\r\n\r\n",
		"G\x01T / HTTP/1.1\r\n\r\n",                /* a control in the method */
		"GET /a\x7f HTTP/1.1\r\n\r\n",             /* in the path */
		"GET / HTTP/1.1\r\nNo colon\r\n\r\n",
		"GET / HTTP/1.1\r\n: empty name\r\n\r\n",
		"GET / HTTP/1.1\r\nX: a\x01b\r\n\r\n",      /* a control in a value */
		"GET / HTTP/1.1\r\n folded: x\r\n\r\n",    /* obs-fold */
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
	};
	struct http_request r;
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &r) != HTTP_BAD)
			print_error("accepted: %s\n", bad[i]);
		assert_int_equal(parse(bad[i], &r), HTTP_BAD);
	}
	/* A NUL in the request line: by length, not to the NUL. */
	assert_int_equal(http_parse_request("GET /\0 HTTP/1.1\r\n\r\n", 20, 8192, &r), HTTP_BAD);
	/* A path longer than kept is refused, not cut into another path. */
	char path[400];
	snprintf(path, sizeof(path), "GET /%0300d HTTP/1.1\r\n\r\n", 0);
	assert_int_equal(parse(path, &r), HTTP_BAD);
}

/* What `fill` writes, as a string (the caller frees). */
static char *written(void (*fill)(FILE *))
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	assert_non_null(f);
	fill(f);
	assert_int_equal(fclose(f), 0);
	return s;
}

static void samples(FILE *f)
{
	prom_counter(f, "muster_x_total", "Help with a \\ and a\nnewline.", 42);
	prom_family(f, "muster_y", "gauge", "Y.");
	prom_sample(f, "muster_y", "backend", "a\"b\\c\nd", 0.0005);
	prom_sample(f, "muster_y", NULL, NULL, 1e20);
	prom_sample(f, "muster_y", NULL, NULL, INFINITY);
}

static void histogram(FILE *f)
{
	static const double le[] = { 0.001, 0.5 };
	static const unsigned long long counts[] = { 1, 2, 3 };
	prom_histogram(f, "muster_h_seconds", "H.", le, 2, counts, 12.25);
}

static void exposition(void **state)
{
	(void)state;
	char *s = written(samples);
	assert_string_equal(s, "# HELP muster_x_total Help with a \\\\ and a\\nnewline.\n"
	                       "# TYPE muster_x_total counter\n"
	                       "muster_x_total 42\n"
	                       "# HELP muster_y Y.\n"
	                       "# TYPE muster_y gauge\n"
	                       "muster_y{backend=\"a\\\"b\\\\c\\nd\"} 0.0005\n"
	                       "muster_y 1e+20\n"
	                       "muster_y +Inf\n");
	free(s);
	s = written(histogram);
	assert_string_equal(s, "# HELP muster_h_seconds H.\n"
	                       "# TYPE muster_h_seconds histogram\n"
	                       "muster_h_seconds_bucket{le=\"0.001\"} 1\n"
	                       "muster_h_seconds_bucket{le=\"0.5\"} 3\n"
	                       "muster_h_seconds_bucket{le=\"+Inf\"} 6\n"
	                       "muster_h_seconds_sum 12.25\n"
	                       "muster_h_seconds_count 6\n");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(requests_that_parse),
		cmocka_unit_test(requests_not_yet_whole),
		cmocka_unit_test(hostile_requests),
		cmocka_unit_test(exposition),
	};
	return run_tap_tests(tests, NULL, NULL);
}
