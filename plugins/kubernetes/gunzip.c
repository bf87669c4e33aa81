/*
 * kubernetes: a gzip answer, decoded whole by libdeflate.
 *
 * The API server gzips large lists.  A page is gathered whole before it is
 * walked anyway, so it is gathered compressed (a page of 500 pods is tens
 * of kilobytes) and decoded in one call, straight into the page's buffer:
 * libdeflate decodes a whole buffer about twice as fast as zlib's stream
 * decoder (as libcurl drives it, in 16 KB steps), and checks the gzip CRC
 * with the CPU's carry-less multiply.  The CRC and length of every member
 * are checked; a stream of several members is decoded member by member.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>

#include <libdeflate.h>

#include "k8s.h"

/* The length the stream's last member says it decodes to (ISIZE: the
 * last 4 bytes, little-endian, modulo 2^32); a first guess only. */
static size_t stated_size(const unsigned char *in, size_t len)
{
	if (len < 4)
		return 0;
	return (size_t)in[len - 4] | (size_t)in[len - 3] << 8 | (size_t)in[len - 2] << 16 |
	       (size_t)in[len - 1] << 24;
}

int k8s_gunzip(struct libdeflate_decompressor *d, const char *in, size_t len, size_t max,
               const struct k8s_sink *sink, char *why, size_t whysize)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t at = 0, total = 0;

	while (at < len) {
		size_t room = stated_size(p + at, len - at), used_in = 0, used_out = 0;
		enum libdeflate_result r;
		char *out;

		if (room < 4096)
			room = 4096;
		for (;;) {
			if (room > max - total)
				room = max - total;
			if ((out = sink->room(sink->ctx, room)) == NULL)
				return K8S_GUNZIP_NOMEM;
			r = libdeflate_gzip_decompress_ex(d, p + at, len - at, out, room, &used_in,
			                                  &used_out);
			if (r != LIBDEFLATE_INSUFFICIENT_SPACE)
				break;
			if (room == max - total)
				return K8S_GUNZIP_TOO_LARGE;
			/* The stated size was wrong (or is another member's): more. */
			room = room > (max - total) / 2 ? max - total : room * 2;
		}
		if (r != LIBDEFLATE_SUCCESS) {
			snprintf(why, whysize, "%s in the member at byte %zu of %zu",
			         r == LIBDEFLATE_BAD_DATA ? "corrupt gzip data (or a wrong checksum)"
			                                  : "gzip data that cannot be decoded",
			         at, len);
			return K8S_GUNZIP_BAD;
		}
		sink->wrote(sink->ctx, used_out);
		total += used_out;
		at += used_in;
	}
	return K8S_GUNZIP_OK;
}
