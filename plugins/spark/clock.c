/*
 * The call's deadline.  One monotonic deadline bounds everything resolve()
 * does: the earlier of reservation_timeout_ms and the entry's budget (less
 * a margin, so the answer reaches the core in time).
 */
#include "config.h"

#include <limits.h>
#include <time.h>

#include "spark.h"

static void add_ms(struct timespec *t, long ms)
{
	t->tv_sec += ms / 1000;
	t->tv_nsec += (ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

static int before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

void spark_clock_start(struct spark_run *run)
{
	long budget = run->host->remaining_ms(run->call);
	struct timespec by_budget;

	clock_gettime(CLOCK_MONOTONIC, &run->start);
	budget = budget > 2 * SPARK_BUDGET_MARGIN_MS ? budget - SPARK_BUDGET_MARGIN_MS : budget / 2;
	run->deadline = run->start;
	add_ms(&run->deadline, run->conf->reservation_timeout_ms);
	by_budget = run->start;
	add_ms(&by_budget, budget);
	run->budget_binds = before(&by_budget, &run->deadline);
	if (run->budget_binds)
		run->deadline = by_budget;
}

long spark_ms_until(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!before(&now, deadline))
		return 0;
	ms = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec + 999999L) / 1000000L;
	return ms > LONG_MAX ? LONG_MAX : (long)ms;
}

long spark_elapsed_ms(const struct spark_run *run)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)((now.tv_sec - run->start.tv_sec) * 1000 +
	              (now.tv_nsec - run->start.tv_nsec) / 1000000L);
}

struct timespec spark_deadline_in(const struct spark_run *run, long ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	add_ms(&t, ms);
	return before(&t, &run->deadline) ? t : run->deadline;
}
