#include <config.h>

#include <errno.h>
#include <limits.h>
#include <time.h>

#include "clock.h"

long long clock_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long clock_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

long clock_ms_until(long long deadline_ms)
{
	long long ms = deadline_ms - clock_now_ms();

	return ms <= 0 ? 0 : ms > LONG_MAX ? LONG_MAX : (long)ms;
}

long long clock_wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec;
}

void clock_sleep_ms(long ms)
{
	struct timespec ts;

	if (ms <= 0)
		return;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

long backoff_step(struct backoff *b)
{
	long wait = b->next_ms;

	b->next_ms = b->max_ms > 0 && wait > b->max_ms / 2 ? b->max_ms : wait * 2;
	return wait;
}
