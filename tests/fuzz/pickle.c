/*
 * Fuzz target: the pickle decoder (tfos/wire/pickle_decode.c).  Every
 * input must decode or fail cleanly, without a crash, a leak or undefined
 * behaviour; what decodes must encode, the encoding must decode, and
 * encoding that again must give the same bytes (compared as bytes, not
 * with pv_equal, because NaN != NaN).
 * Small limits make the depth, element and memo checks reachable.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pickle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pv_limits lim = {
		.max_input = 1 << 20,
		.max_depth = 16,
		.max_elements = 4096,
		.max_expanded = 1 << 16,
		.max_memo = 256,
	};
	struct pv_error err;
	pv *v = pv_decode(data, size, &lim, &err);
	if (!v)
		return 0;
	uint8_t *out;
	size_t n;
	if (pv_encode(v, &out, &n, &err) != 0)
		abort();
	/* The re-encoding expands shared values: allow it the expanded size. */
	struct pv_limits big = {.max_input = (size_t)64 << 20};
	pv *again = pv_decode(out, n, &big, &err);
	if (!again)
		abort();
	uint8_t *out2;
	size_t n2;
	if (pv_encode(again, &out2, &n2, &err) != 0 || n2 != n || memcmp(out, out2, n) != 0)
		abort();
	free(out2);
	pv_free(again);
	free(out);
	pv_free(v);
	return 0;
}
