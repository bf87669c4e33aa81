/* The benchmark's worker: prints when it started (CLOCK_MONOTONIC, ns)
 * and its RANK, so launcher cost is not hidden by a runtime's start-up. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(void)
{
	struct timespec ts;
	const char *rank = getenv("RANK");

	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("%lld %s\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, rank ? rank : "?");
	return 0;
}
