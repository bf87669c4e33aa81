/*
 * The call's deadline.  One monotonic deadline bounds everything resolve()
 * does: the earlier of reservation_timeout_ms and the entry's budget (less
 * a margin, so the answer reaches the core in time).
 */
#include <config.h>

#include "spark.h"
#include "lib/clock.h"

void spark_clock_start(struct spark_run *run)
{
	long budget = run->host->remaining_ms(run->call);
	long long by_budget;

	run->start_ms = clock_now_ms();
	budget = budget > 2 * SPARK_BUDGET_MARGIN_MS ? budget - SPARK_BUDGET_MARGIN_MS : budget / 2;
	run->deadline_ms = run->start_ms + run->conf->reservation_timeout_ms;
	by_budget = run->start_ms + budget;
	run->budget_binds = by_budget < run->deadline_ms;
	if (run->budget_binds)
		run->deadline_ms = by_budget;
}

long spark_elapsed_ms(const struct spark_run *run)
{
	return (long)(clock_now_ms() - run->start_ms);
}

long long spark_deadline_in(const struct spark_run *run, long ms)
{
	long long t = clock_now_ms() + ms;

	return t < run->deadline_ms ? t : run->deadline_ms;
}
