/*
 * Fuzz target: a gzip answer of the API server, decoded whole by
 * k8s_gunzip (libdeflate) into a bounded buffer, as http.c hands it on.
 */
#include <config.h>

#include <libdeflate.h>

#include "fuzz.h"
#include "k8s.h"

/* Small, so that the size limit is reached too. */
#define MAX_OUT ((size_t)1 << 20)

static char *room(void *ctx, size_t n) { return pbuf_room(ctx, n); }
static void wrote(void *ctx, size_t n) { pbuf_wrote(ctx, n); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct libdeflate_decompressor *d;
	struct pbuf out;
	struct k8s_sink sink = { room, wrote, &out };
	char why[160];

	if (d == NULL && (d = libdeflate_alloc_decompressor()) == NULL)
		return 0;
	pbuf_init(&out, MAX_OUT);
	k8s_gunzip(d, (const char *)data, size, MAX_OUT, &sink, why, sizeof(why));
	pbuf_free(&out);
	return 0;
}
