/*
 * A Slurm allocation of NODES nodes with TPN tasks each (default 4,096 x 8:
 * "n[0001-4096]", "8(x4096)"), timed three ways in one run:
 *  - our expansion of the two lists alone;
 *  - muster_resolve() through the slurm plugin (expansion, TF's layout,
 *    the result built), as the last task of the step;
 *  - muster_resolve() of the same cluster written out for `static`: the
 *    same result from a config, each address checked one by one (a range
 *    checks one per node);
 *  - `scontrol show hostnames` on the same host list, a whole process,
 *    which is what users call today (skipped when it is not installed);
 *  - `muster env --for pytorch` in-process on the slurm result: the launch
 *    plan (muster_launch_plan) and the last task's environment
 *    (muster_plan_env), beside the resolve; and the same on the static
 *    cluster with placement = "processes" (nodes are hosts, found by
 *    hashing each task's host), the placement a scheduler's result has.
 * Memory: the heap a result holds (mallinfo2 before and after) per task.
 *   bench_slurm [NODES [TPN [ROUNDS]]]
 */
#include <config.h>

#include <fcntl.h>
#include <malloc.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <muster/muster.h>

#include "hostlist.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp);
	return v[n / 2];
}

/* The same cluster as a static entry's config; `processes`: as a
 * scheduler's (processes placement, a job id). */
static char *static_config(int nodes, int tpn, int processes)
{
	size_t cap = (size_t)nodes * (size_t)tpn * 16 + 256, len = 0;
	char *s = malloc(cap);
	len += (size_t)sprintf(s, "chain = ( { plugin = \"static\"; config = { jobs = { worker = [");
	for (int i = 1; i <= nodes; i++)
		for (int k = 0; k < tpn; k++)
			len += (size_t)sprintf(s + len, "%s\"n%04d:%d\"", len > 70 ? "," : "", i, 8888 + k);
	sprintf(s + len, "]; }; task = { type = \"worker\"; index = %d; }; %s }; } );\n",
	        nodes * tpn - 1, processes ? "placement = \"processes\"; job_id = \"4242\";" : "");
	return s;
}

static muster_ctx *open_text(const char *text)
{
	char path[] = "/tmp/muster-bench-slurm-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	muster_ctx *ctx = NULL;
	muster_error err;
	if (!f) {
		perror("mkstemp");
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	if (muster_ctx_open(&ctx, path, NULL, &err) != 0) {
		fprintf(stderr, "open: %s\n", err.message);
		exit(1);
	}
	remove(path);
	return ctx;
}

/* What `muster env --for pytorch` does after its resolve: the plan, the
 * own process's environment; its time in ms. */
static double time_env(const muster_result *r)
{
	muster_launch l = MUSTER_LAUNCH_INIT;
	muster_error err;
	muster_plan *p = NULL;
	char **env = NULL;
	l.framework = "pytorch";
	double t = now_ms();
	if (muster_launch_plan(&p, r, &l, &err) != 0 || muster_plan_env(&env, p, 0, NULL, &err) != 0) {
		fprintf(stderr, "env: %s\n", err.message);
		exit(1);
	}
	t = now_ms() - t;
	muster_free(env);
	muster_plan_free(p);
	return t;
}

/* One `scontrol show hostnames LIST >/dev/null`; -1 when it cannot run. */
/* posix_spawn, not fork: a fork write-protects this process's pages, and
 * the next resolve would pay a copy-on-write fault for each page it writes,
 * which no real `muster resolve` pays. */
static double time_scontrol(const char *list)
{
	char *argv[] = { "scontrol", "show", "hostnames", (char *)list, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, rc;
	double t = now_ms();

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, "scontrol", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return now_ms() - t;
}

int main(int argc, char **argv)
{
	int nodes = argc > 1 ? atoi(argv[1]) : 4096;
	int tpn = argc > 2 ? atoi(argv[2]) : 8;
	int rounds = argc > 3 ? atoi(argv[3]) : 51;
	long tasks = (long)nodes * tpn;
	char list[64], counts[64], num[32];
	double *a = calloc((size_t)rounds, sizeof(double)), *b = calloc((size_t)rounds, sizeof(double));
	double *c = calloc((size_t)rounds, sizeof(double));
	size_t held = 0;
	int scontrol_ok = 1, slurm_placement = 0;
	char why[256];

	snprintf(list, sizeof(list), "n[%04d-%04d]", 1, nodes);
	snprintf(counts, sizeof(counts), "%d(x%d)", tpn, nodes);
	setenv("SLURM_STEP_NODELIST", list, 1);
	setenv("SLURM_STEP_TASKS_PER_NODE", counts, 1);
	snprintf(num, sizeof(num), "%ld", tasks);
	setenv("SLURM_STEP_NUM_TASKS", num, 1);
	snprintf(num, sizeof(num), "%ld", tasks - 1);
	setenv("SLURM_PROCID", num, 1);
	muster_ctx *ctx = open_text("chain = ( { plugin = \"slurm\"; } );\n");
	char *text = static_config(nodes, tpn, 0);
	muster_ctx *static_ctx = open_text(text);
	double *d = calloc((size_t)rounds, sizeof(double));
	double *e = calloc((size_t)rounds, sizeof(double)), *f = calloc((size_t)rounds, sizeof(double));
	free(text);
	text = static_config(nodes, tpn, 1);
	muster_ctx *procs_ctx = open_text(text);
	muster_result *procs = NULL;
	muster_error perr;
	free(text);
	if (muster_resolve(&procs, procs_ctx, &perr) != 0) {
		fprintf(stderr, "resolve (static, processes): %s\n", perr.message);
		return 1;
	}

	for (int i = 0; i < rounds; i++) {
		struct hostlist h;
		long *v;
		size_t n;
		double t = now_ms();
		if (hostlist_expand(list, &h, why, sizeof(why)) < 0 ||
		    tasks_per_node_expand(counts, SLURM_MAX_HOSTS, &v, &n, why, sizeof(why)) < 0) {
			fprintf(stderr, "expand: %s\n", why);
			return 1;
		}
		a[i] = now_ms() - t;
		hostlist_free(&h);
		free(v);

		muster_result *r = NULL;
		muster_error err;
		struct mallinfo2 before = mallinfo2();
		t = now_ms();
		if (muster_resolve(&r, ctx, &err) != 0) {
			fprintf(stderr, "resolve: %s\n", err.message);
			return 1;
		}
		b[i] = now_ms() - t;
		struct mallinfo2 after = mallinfo2();
		if (i == 0)
			held = (after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd);
		slurm_placement = muster_result_placement(r);
		e[i] = time_env(r);
		f[i] = time_env(procs);
		muster_result_free(r);

		t = now_ms();
		if (muster_resolve(&r, static_ctx, &err) != 0) {
			fprintf(stderr, "resolve (static): %s\n", err.message);
			return 1;
		}
		d[i] = now_ms() - t;
		muster_result_free(r);

		if (scontrol_ok && (c[i] = time_scontrol(list)) < 0)
			scontrol_ok = 0;
	}
	printf("%d nodes x %d tasks = %ld tasks, %d rounds\n", nodes, tpn, tasks, rounds);
	printf("expand the two lists        median %8.3f ms\n", median(a, rounds));
	printf("muster_resolve (slurm)      median %8.3f ms   %.1f B/task held by the result\n",
	       median(b, rounds), (double)held / (double)tasks);
	printf("muster_resolve (static)     median %8.3f ms   the same cluster from a config "
	       "(slurm/static %.2f)\n", median(d, rounds), median(b, rounds) / median(d, rounds));
	printf("env --for pytorch (slurm)   median %8.3f ms   plan + own env, in-process, after "
	       "the resolve (the slurm result's placement: %s)\n", median(e, rounds),
	       slurm_placement == MUSTER_PLACEMENT_PROCESSES ? "processes" : "nodes");
	printf("env --for pytorch (procs)   median %8.3f ms   the same cluster with processes "
	       "placement (static)\n", median(f, rounds));
	if (scontrol_ok) {
		double s = median(c, rounds);
		printf("scontrol show hostnames     median %8.3f ms   (%.0fx the whole resolve)\n", s,
		       s / median(b, rounds));
	} else {
		printf("scontrol show hostnames     not run (not installed, or SLURM_CONF unset)\n");
	}
	muster_ctx_free(ctx);
	muster_ctx_free(static_ctx);
	muster_result_free(procs);
	muster_ctx_free(procs_ctx);
	free(e);
	free(f);
	free(d);
	free(a);
	free(b);
	free(c);
	return 0;
}
