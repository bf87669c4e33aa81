/*
 * Fuzz target: what a client sends the metrics page (lib/http_request.c,
 * `muster reserve|watch --metrics-port`).  The input is the bytes as they
 * arrived; they are parsed as each prefix would be (a request comes in
 * pieces), with a header limit of 8 KiB and of the input's first byte
 * (a small one, to reach the too-large answer), and a complete answer is
 * checked: its method and path are what the request line holds.
 */
#include <config.h>

#include <assert.h>
#include <string.h>

#include "fuzz.h"
#include "lib/http_request.h"

static void parse(const char *buf, size_t len, size_t max)
{
	struct http_request r;
	enum http_parse st = http_parse_request(buf, len, max, &r);

	assert(st == HTTP_NEED_MORE || st == HTTP_COMPLETE || st == HTTP_BAD ||
	       st == HTTP_TOO_LARGE);
	if (st != HTTP_COMPLETE)
		return;
	assert(r.header_len <= len && r.header_len <= max);
	assert(strlen(r.method) < sizeof(r.method) && strlen(r.path) < sizeof(r.path));
	assert(r.method[0] == '\0' || memcmp(buf, r.method, strlen(r.method)) == 0);
	assert(r.minor >= 0 && r.minor <= 9);
	assert(strchr(r.path, ' ') == NULL && strchr(r.path, '?') == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > ((size_t)64 << 10))
		return 0;
	size_t small = data[0];
	const char *buf = (const char *)data + 1;
	size--;
	/* Every prefix a client may have sent so far, as the server sees them. */
	for (size_t len = 0; len <= size; len += 1 + len / 16)
		parse(buf, len, 8192);
	parse(buf, size, 8192);
	parse(buf, size, small);
	return 0;
}
