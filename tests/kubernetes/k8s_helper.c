/*
 * A helper the kubernetes shell tests drive against their loopback API
 * server, for what one `muster` run per resolve cannot show:
 *
 *   k8s_helper rotate CONF CLIENT_TOKEN_FILE SERVER_TOKEN_FILE
 *     resolves, replaces the token in both files, resolves again on the
 *     same context: the plugin must read the token again (bound
 *     service-account tokens rotate).  Prints worker:0's address each time.
 *   k8s_helper threads CONF N
 *     N threads resolve on one context at once (the plugin says it is
 *     thread-safe); each must see the whole cluster.
 *
 * All log messages (debug included) are checked: no token may appear.
 */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <muster/muster.h>

static const char *secrets[2];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int leaked;

static void on_log(int level, const char *message, void *data)
{
	size_t i;

	(void)level;
	(void)data;
	pthread_mutex_lock(&log_lock);
	for (i = 0; i < 2; i++)
		if (secrets[i] != NULL && strstr(message, secrets[i]) != NULL)
			leaked = 1;
	pthread_mutex_unlock(&log_lock);
}

static muster_ctx *open_ctx(const char *conf)
{
	muster_options opts = MUSTER_OPTIONS_INIT;
	muster_error err;
	muster_ctx *ctx = NULL;

	opts.log_level = MUSTER_LOG_DEBUG;
	opts.log = on_log;
	if (muster_ctx_open(&ctx, conf, &opts, &err) != 0) {
		fprintf(stderr, "open: %s\n", err.message);
		exit(1);
	}
	return ctx;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static char *read_line(const char *path)
{
	static char buf[2][256];
	static int which;
	FILE *f = fopen(path, "r");
	char *b = buf[which++ % 2];

	if (f == NULL || fgets(b, sizeof(buf[0]), f) == NULL) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	b[strcspn(b, "\n")] = '\0';
	return b;
}

static int resolve_print(muster_ctx *ctx, const char *label)
{
	muster_result *r = NULL;
	muster_error err;
	const char *addr;

	if (muster_resolve(&r, ctx, &err) != 0) {
		fprintf(stderr, "%s resolve: %s\n", label, err.message);
		return 1;
	}
	addr = muster_result_address(r, "worker", 0);
	printf("%s: %s\n", label, addr ? addr : "(none)");
	muster_result_free(r);
	return 0;
}

static int rotate(const char *conf, const char *client, const char *server)
{
	muster_ctx *ctx = open_ctx(conf);
	int rc;

	secrets[0] = read_line(client);
	secrets[1] = "rotated-token-number-2";
	rc = resolve_print(ctx, "first");
	if (rc == 0) {
		if (write_file(server, "rotated-token-number-2") != 0 ||
		    write_file(client, "rotated-token-number-2\n") != 0) {
			fprintf(stderr, "cannot rotate the token\n");
			rc = 1;
		} else {
			puts("rotated");
			rc = resolve_print(ctx, "second");
		}
	}
	muster_ctx_free(ctx);
	return rc;
}

struct job {
	pthread_t t;
	muster_ctx *ctx;
	size_t workers;
	char message[1024];
	int rc;
};

static void *run_one(void *p)
{
	struct job *j = p;
	muster_result *r = NULL;
	muster_error err;

	j->rc = muster_resolve(&r, j->ctx, &err);
	if (j->rc != 0) {
		snprintf(j->message, sizeof(j->message), "%s", err.message);
		return NULL;
	}
	j->workers = muster_result_task_count(r, "worker");
	muster_result_free(r);
	return NULL;
}

static int threads(const char *conf, int n)
{
	muster_ctx *ctx = open_ctx(conf);
	struct job *jobs = calloc((size_t)n, sizeof(*jobs));
	size_t first = 0;
	int i, rc = 0;

	if (jobs == NULL)
		return 1;
	for (i = 0; i < n; i++) {
		jobs[i].ctx = ctx;
		if (pthread_create(&jobs[i].t, NULL, run_one, &jobs[i]) != 0)
			return 1;
	}
	for (i = 0; i < n; i++)
		pthread_join(jobs[i].t, NULL);
	for (i = 0; i < n; i++) {
		if (jobs[i].rc != 0) {
			fprintf(stderr, "thread %d: %s\n", i, jobs[i].message);
			rc = 1;
		} else if (i > 0 && jobs[i].workers != first) {
			fprintf(stderr, "thread %d saw %zu workers, thread 0 %zu\n", i, jobs[i].workers,
			        first);
			rc = 1;
		}
		if (i == 0)
			first = jobs[i].workers;
	}
	if (rc == 0)
		printf("%d resolves, %zu workers each\n", n, first);
	free(jobs);
	muster_ctx_free(ctx);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc == 5 && strcmp(argv[1], "rotate") == 0)
		rc = rotate(argv[2], argv[3], argv[4]);
	else if (argc == 4 && strcmp(argv[1], "threads") == 0)
		rc = threads(argv[2], atoi(argv[3]));
	else {
		fprintf(stderr, "usage: k8s_helper rotate CONF CLIENT_TOKEN SERVER_TOKEN\n"
		                "       k8s_helper threads CONF N\n");
		return 64;
	}
	if (leaked) {
		fprintf(stderr, "a token appeared in a log message\n");
		return 1;
	}
	return rc;
}
