#include <config.h>

#include "job_port.h"

#include <stdint.h>

#define LOW_FIRST 1024
#define LOW_COUNT (32768 - LOW_FIRST)
#define HIGH_FIRST 61000
#define HIGH_COUNT (65536 - HIGH_FIRST)

_Static_assert(LOW_COUNT + HIGH_COUNT == JOB_PORT_COUNT, "the ports counted");

/* The modulo bias of a 64-bit hash onto 36,280 values is below 2^-48. */
int job_port(const char *job_id)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (const unsigned char *p = (const unsigned char *)job_id; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	uint64_t i = h % JOB_PORT_COUNT;
	return i < LOW_COUNT ? LOW_FIRST + (int)i : HIGH_FIRST + (int)(i - LOW_COUNT);
}
