/*
 * This machine's GPUs found two ways, in one process, interleaved round by
 * round so that both see the same noise:
 *   bench_devices ROUNDS [SYSROOT]
 * muster_local_devices() (the driver's /proc and sysfs; under SYSROOT when
 * given), and, where libnvidia-ml.so.1 loads and no SYSROOT is given, the
 * NVML path muster took before: load NVML, initialise it, list each GPU's
 * handle, UUID and bus id, shut it down.  Prints the median of each.
 *   bench_devices nvml
 * takes the NVML path once and exits: a whole process to time beside
 * `muster accelerators --local` (bench/devices/run.sh).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <muster/muster.h>

#include "local/local_nvml.h"

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The NVML path: the number of GPUs it lists, -1 when NVML does not load. */
static long nvml_path(void)
{
	char why[256];
	struct muster_devices d = { 0 };
	struct nvml *n = nvml_open(why, sizeof(why));
	if (!n)
		return -1;
	if (nvml_list(n, &d) < 0)
		abort();
	nvml_close(n);
	free(d.dev);
	return (long)d.n;
}

static long proc_path(const char *sysroot)
{
	muster_devices *d = NULL;
	muster_error err;
	if (muster_local_devices(&d, sysroot, &err) != 0) {
		fprintf(stderr, "muster_local_devices: %s\n", err.message);
		exit(2);
	}
	long n = (long)muster_devices_count(d);
	muster_devices_free(d);
	return n;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "nvml") == 0)
		return nvml_path() < 0 ? 2 : 0;
	if (argc < 2 || argc > 3 || atoi(argv[1]) < 1) {
		fprintf(stderr, "usage: %s ROUNDS [SYSROOT] | nvml\n", argv[0]);
		return 2;
	}
	int rounds = atoi(argv[1]);
	const char *sysroot = argc == 3 ? argv[2] : NULL;
	double *tp = calloc((size_t)rounds, sizeof(double)), *tn = calloc((size_t)rounds, sizeof(double));
	long np = 0, nn = -1;
	for (int i = 0; tp && tn && i < rounds; i++) {
		double a = now_ms();
		np = proc_path(sysroot);
		double b = now_ms();
		nn = sysroot ? -1 : nvml_path();
		tp[i] = b - a;
		tn[i] = now_ms() - b;
	}
	qsort(tp, (size_t)rounds, sizeof(double), cmp);
	qsort(tn, (size_t)rounds, sizeof(double), cmp);
	printf("muster_local_devices(%s)  %ld devices  median %.3f ms  p90 %.3f ms\n",
	       sysroot ? sysroot : "this machine", np, tp[rounds / 2], tp[rounds * 9 / 10]);
	if (nn >= 0)
		printf("NVML path (init, list, shutdown)  %ld GPUs  median %.3f ms  p90 %.3f ms\n", nn,
		       tn[rounds / 2], tn[rounds * 9 / 10]);
	else
		printf("NVML path: %s\n", sysroot ? "not taken under a sysroot" : "libnvidia-ml.so.1 does not load here");
	free(tp);
	free(tn);
	return 0;
}
