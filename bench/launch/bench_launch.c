/*
 * Launch overhead: from starting a 2-node x 2-process job on loopback to
 * the last worker's first line, for each launcher given, interleaved run
 * by run; prints the median of each and its ratio to the first.
 *
 *   bench_launch ROUNDS OUTDIR -- NAME CMD0 CMD1 [-- NAME CMD0 CMD1 ...]
 *
 * CMD0 and CMD1 are the two nodes' command lines (run with /bin/sh -c,
 * output to OUTDIR/node0, node1); every output line starts with the
 * worker's CLOCK_MONOTONIC start time in ns.
 */
#include <config.h>

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct launcher {
	const char *name, *cmd[2];
	double ms[64];
};

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static pid_t spawn(const char *cmd, const char *out)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, 0x241 /* O_WRONLY|O_CREAT|O_TRUNC */, 0644);
	if (posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ) != 0) {
		perror("posix_spawn");
		exit(2);
	}
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

/* The latest start time in a node's output; counts its lines. */
static long long latest(const char *path, int *lines)
{
	FILE *f = fopen(path, "r");
	long long t, max = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f)) {
		const char *p = line;
		if (p[0] == '[' && strstr(p, "]:")) /* a launcher's "[rank]:" prefix */
			p = strstr(p, "]:") + 2;
		if (sscanf(p, "%lld", &t) == 1) {
			++*lines;
			if (t > max)
				max = t;
		}
	}
	if (f)
		fclose(f);
	return max;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct launcher l[8];
	int n = 0, rounds;
	char out[2][4096];

	if (argc < 7 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "usage: bench_launch ROUNDS OUTDIR -- NAME CMD0 CMD1 [-- ...]\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	if (rounds < 1 || rounds > 64)
		return 2;
	for (int i = 3; i + 3 < argc + 1 && n < 8; i += 4) {
		if (strcmp(argv[i], "--") != 0 || i + 3 >= argc)
			return 2;
		l[n].name = argv[i + 1];
		l[n].cmd[0] = argv[i + 2];
		l[n++].cmd[1] = argv[i + 3];
	}
	for (int k = 0; k < 2; k++)
		snprintf(out[k], sizeof(out[k]), "%s/node%d", argv[2], k);
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < n; i++) {
			long long t0 = now_ns(), last = 0;
			pid_t pid[2];
			int lines = 0, st;
			for (int k = 0; k < 2; k++)
				pid[k] = spawn(l[i].cmd[k], out[k]);
			for (int k = 0; k < 2; k++) {
				waitpid(pid[k], &st, 0);
				if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
					fprintf(stderr, "%s: node %d failed (status %d)\n", l[i].name, k, st);
			}
			for (int k = 0; k < 2; k++) {
				long long t = latest(out[k], &lines);
				if (t > last)
					last = t;
			}
			if (lines != 4)
				fprintf(stderr, "%s: %d worker lines, not 4\n", l[i].name, lines);
			l[i].ms[r] = (double)(last - t0) / 1e6;
		}
	}
	double base = 0;
	for (int i = 0; i < n; i++) {
		qsort(l[i].ms, (size_t)rounds, sizeof(double), dcmp);
		double med = l[i].ms[rounds / 2];
		if (i == 0)
			base = med;
		printf("%-24s median %9.3f ms  min %9.3f  max %9.3f  (%+.3f ms vs %s)\n", l[i].name,
		       med, l[i].ms[0], l[i].ms[rounds - 1], med - base, l[0].name);
	}
	return 0;
}
