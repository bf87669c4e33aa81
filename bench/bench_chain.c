/*
 * What a chain's extra entries cost when none of them applies:
 *   bench_chain ROUNDS CONF CONF_BASE
 * opens both configs once, then times muster_resolve() on each, batch by
 * batch interleaved so both see the same machine noise, and prints the
 * median time of one resolve of each and their difference.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <muster/muster.h>

#define BATCH 200

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static muster_ctx *open_or_die(const char *path)
{
	muster_ctx *ctx = NULL;
	muster_error err;

	if (muster_ctx_open(&ctx, path, NULL, &err) != 0) {
		fprintf(stderr, "%s: %s\n", path, err.message);
		exit(1);
	}
	return ctx;
}

/* One resolve's mean time over a batch. */
static double batch(muster_ctx *ctx)
{
	muster_result *r;
	muster_error err;
	double t = now_ms();

	for (int i = 0; i < BATCH; i++) {
		r = NULL;
		if (muster_resolve(&r, ctx, &err) != 0) {
			fprintf(stderr, "resolve: %s\n", err.message);
			exit(1);
		}
		muster_result_free(r);
	}
	return (now_ms() - t) / BATCH;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rounds = argc == 4 ? atoi(argv[1]) : 0;
	muster_ctx *chain, *base;
	double *a, *b;

	if (rounds < 1) {
		fprintf(stderr, "usage: %s ROUNDS CONF CONF_BASE\n", argv[0]);
		return 2;
	}
	chain = open_or_die(argv[2]);
	base = open_or_die(argv[3]);
	a = calloc((size_t)rounds, sizeof(*a));
	b = calloc((size_t)rounds, sizeof(*b));
	if (a == NULL || b == NULL)
		return 1;
	batch(chain); /* warm: plugins loaded, caches filled */
	batch(base);
	for (int i = 0; i < rounds; i++) {
		a[i] = batch(chain);
		b[i] = batch(base);
	}
	qsort(a, (size_t)rounds, sizeof(*a), cmp);
	qsort(b, (size_t)rounds, sizeof(*b), cmp);
	printf("%-34s median %.4f ms per resolve\n", argv[2], a[rounds / 2]);
	printf("%-34s median %.4f ms per resolve\n", argv[3], b[rounds / 2]);
	printf("extra entries cost %.4f ms per resolve\n", a[rounds / 2] - b[rounds / 2]);
	muster_ctx_free(chain);
	muster_ctx_free(base);
	free(a);
	free(b);
	return 0;
}
