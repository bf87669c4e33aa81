/*
 * muster_resolve() on large clusters, each beside its floor in one run:
 *  - static, N tasks in the config   vs  copying the N address strings;
 *  - TF_CONFIG of N tasks            vs  cJSON parsing the same text.
 * Reports medians, their ratio, and the heap a result holds per task beyond
 * its address strings (mallinfo2 before and after).
 *   bench_resolve [N] [ROUNDS]
 */
#include <config.h>

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include <muster/muster.h>

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

static void address(char *buf, size_t len, int i)
{
	snprintf(buf, len, "worker-%d.training.svc.cluster.local:2222", i);
}

static const char *write_temp(const char *text)
{
	static char path[32];
	strcpy(path, "/tmp/muster-bench-XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		perror("mkstemp");
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	return path;
}

static char *static_config(int n, size_t *addr_bytes)
{
	size_t cap = (size_t)n * 64 + 256, len = 0;
	char *s = malloc(cap);
	len += (size_t)sprintf(s, "chain = ( { plugin = \"static\"; config = { jobs = { worker = [");
	*addr_bytes = 0;
	for (int i = 0; i < n; i++) {
		char a[64];
		address(a, sizeof(a), i);
		*addr_bytes += strlen(a) + 1;
		len += (size_t)sprintf(s + len, "%s\"%s\"", i ? "," : "", a);
	}
	sprintf(s + len, "]; }; task = { type = \"worker\"; index = 0; }; }; } );\n");
	return s;
}

static char *tf_config_json(int n)
{
	size_t cap = (size_t)n * 64 + 256, len = 0;
	char *s = malloc(cap);
	len += (size_t)sprintf(s, "{\"cluster\": {\"worker\": [");
	for (int i = 0; i < n; i++) {
		char a[64];
		address(a, sizeof(a), i);
		len += (size_t)sprintf(s + len, "%s\"%s\"", i ? ", " : "", a);
	}
	sprintf(s + len, "]}, \"task\": {\"type\": \"worker\", \"index\": 7}}");
	return s;
}

static muster_ctx *open_or_die(const char *text)
{
	muster_ctx *ctx = NULL;
	muster_error err;
	const char *path = write_temp(text);
	if (muster_ctx_open(&ctx, path, NULL, &err) != 0) {
		fprintf(stderr, "open: %s\n", err.message);
		exit(1);
	}
	remove(path);
	return ctx;
}

static double time_resolve(muster_ctx *ctx, size_t *bytes_held)
{
	muster_result *r = NULL;
	muster_error err;
	struct mallinfo2 before = mallinfo2();
	double t = now_ms();
	if (muster_resolve(&r, ctx, &err) != 0) {
		fprintf(stderr, "resolve: %s\n", err.message);
		exit(1);
	}
	t = now_ms() - t;
	struct mallinfo2 after = mallinfo2();
	if (bytes_held)
		*bytes_held = (after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd);
	muster_result_free(r);
	return t;
}

static void report(const char *what, double ours, const char *floor_name, double floor,
                   size_t held, size_t addr_bytes, int n)
{
	printf("%-26s median %8.3f ms   (%s: %.3f ms, ratio %.1f)   held %.1f B/task beyond addresses\n",
	       what, ours, floor_name, floor, ours / floor,
	       ((double)held - (double)addr_bytes) / n);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	int rounds = argc > 2 ? atoi(argv[2]) : 51;
	double *a = calloc((size_t)rounds, sizeof(double)), *b = calloc((size_t)rounds, sizeof(double));
	size_t addr_bytes, held = 0;

	char *cfg = static_config(n, &addr_bytes);
	muster_ctx *ctx = open_or_die(cfg);
	free(cfg);
	char **copies = malloc((size_t)n * sizeof(char *));
	char (*addrs)[64] = malloc((size_t)n * sizeof(*addrs));
	for (int k = 0; k < n; k++)
		address(addrs[k], sizeof(addrs[k]), k);
	for (int i = 0; i < rounds; i++) {
		a[i] = time_resolve(ctx, i == 0 ? &held : NULL);
		double t = now_ms();
		for (int k = 0; k < n; k++)
			copies[k] = strdup(addrs[k]);
		for (int k = 0; k < n; k++)
			free(copies[k]);
		b[i] = now_ms() - t;
	}
	free(addrs);
	muster_ctx_free(ctx);
	report("static", median(a, rounds), "strdup floor", median(b, rounds), held, addr_bytes, n);

	char *json = tf_config_json(n);
	setenv("MUSTER_BENCH_TF_CONFIG", json, 1);
	ctx = open_or_die("chain = ( { plugin = \"tf_config\"; config = { variable = \"MUSTER_BENCH_TF_CONFIG\"; }; } );\n");
	for (int i = 0; i < rounds; i++) {
		a[i] = time_resolve(ctx, i == 0 ? &held : NULL);
		double t = now_ms();
		cJSON_Delete(cJSON_Parse(json));
		b[i] = now_ms() - t;
	}
	muster_ctx_free(ctx);
	report("tf_config", median(a, rounds), "cJSON parse floor", median(b, rounds), held, addr_bytes, n);
	printf("(%d tasks, %d rounds, %zu bytes of addresses)\n", n, rounds, addr_bytes);
	free(json);
	free(copies);
	free(a);
	free(b);
	return 0;
}
