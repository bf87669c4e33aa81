/* Time: the one reader of the monotonic clock (budgets, deadlines, elapsed
 * time), the wall clock for expiry dates, sleeps, exponential backoff. */
#ifndef MUSTER_LIB_CLOCK_H
#define MUSTER_LIB_CLOCK_H

/* CLOCK_MONOTONIC in milliseconds.  long long: a machine up for 25 days
 * has passed 2^31 ms. */
long long clock_now_ms(void);
/* The same clock in microseconds, for durations a millisecond is too
 * coarse for (a resolve's, in a metric). */
long long clock_now_us(void);
/* The milliseconds left until `deadline_ms` (clock_now_ms()'s), 0 once it
 * has passed. */
long clock_ms_until(long long deadline_ms);
/* CLOCK_REALTIME in seconds. */
long long clock_wall_s(void);
/* Sleeps `ms` (again after a signal); nothing when ms <= 0. */
void clock_sleep_ms(long ms);

/* Waits that double from `next_ms` up to `max_ms` (0: no cap). */
struct backoff {
	long next_ms;
	long max_ms;
};
/* This wait; the next one is twice as long. */
long backoff_step(struct backoff *b);

#endif
