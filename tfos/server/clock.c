/* Monotonic milliseconds: deadlines must not move with the wall clock. */
#include <config.h>

#include <time.h>

#include "server.h"

long long reserve_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
