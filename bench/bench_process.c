/*
 * Times whole processes, interleaved so both see the same machine noise:
 *   bench_process RUNS -- CMD1 ARGS... -- CMD2 ARGS...
 * prints the median and 90th percentile wall time of each command and the
 * ratio of their medians.  Output of the commands goes to /dev/null.
 */
#include <config.h>

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double run_once(char **argv, posix_spawn_file_actions_t *fa)
{
	struct timespec a, b;
	pid_t pid;
	int status;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (posix_spawnp(&pid, argv[0], fa, NULL, argv, environ) != 0) {
		perror(argv[0]);
		exit(2);
	}
	waitpid(pid, &status, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "%s failed (status %d)\n", argv[0], status);
		exit(2);
	}
	return (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 5 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "usage: %s RUNS -- CMD1 ... -- CMD2 ...\n", argv[0]);
		return 2;
	}
	int runs = atoi(argv[1]);
	char **cmd1 = &argv[3], **cmd2 = NULL;
	for (int i = 3; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			argv[i] = NULL;
			cmd2 = &argv[i + 1];
		}
	if (!cmd2 || runs < 1)
		return 2;
	double *t1 = calloc((size_t)runs, sizeof(double)), *t2 = calloc((size_t)runs, sizeof(double));
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	for (int i = 0; i < runs; i++) {
		t1[i] = run_once(cmd1, &fa);
		t2[i] = run_once(cmd2, &fa);
	}
	qsort(t1, (size_t)runs, sizeof(double), cmp);
	qsort(t2, (size_t)runs, sizeof(double), cmp);
	double m1 = t1[runs / 2], m2 = t2[runs / 2];
	printf("%-40s median %.3f ms  p90 %.3f ms\n", cmd1[0], m1, t1[runs * 9 / 10]);
	printf("%-40s median %.3f ms  p90 %.3f ms\n", cmd2[0], m2, t2[runs * 9 / 10]);
	printf("ratio (first / second): %.2f over %d interleaved runs\n", m1 / m2, runs);
	free(t1);
	free(t2);
	return 0;
}
