/*
 * A helper the gce shell tests drive against their loopback fake, for what
 * one `muster` run per resolve cannot show:
 *
 *   gce_helper repeat CONF N
 *     N resolves, one after the other, on one context (the token and the
 *     metadata answers must be cached in the plugin state);
 *   gce_helper threads CONF N
 *     N threads resolve on one context at once (the plugin says it is
 *     thread-safe); each must see the whole cluster.
 * Prints one line per resolve: the number of tasks of job "worker" (or
 * the error).  Every log message (debug included) is checked: no token
 * ("ya29."), key or secret may appear.
 */
#include <config.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <muster/muster.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int leaked;

static void on_log(int level, const char *message, void *data)
{
	(void)level;
	(void)data;
	pthread_mutex_lock(&lock);
	if (strstr(message, "ya29.") != NULL || strstr(message, "PRIVATE KEY") != NULL ||
	    strstr(message, "refresh-token") != NULL || strstr(message, "client-secret") != NULL)
		leaked = 1;
	pthread_mutex_unlock(&lock);
}

static muster_ctx *ctx;
static char lines[64][1100];

static void *one(void *arg)
{
	size_t i = (size_t)(uintptr_t)arg;
	muster_result *r = NULL;
	muster_error err;

	if (muster_resolve(&r, ctx, &err) != 0)
		snprintf(lines[i], sizeof(lines[i]), "error: %s", err.message);
	else
		snprintf(lines[i], sizeof(lines[i]), "%zu", muster_result_task_count(r, "worker"));
	muster_result_free(r);
	return NULL;
}

int main(int argc, char **argv)
{
	muster_options opts = MUSTER_OPTIONS_INIT;
	pthread_t th[64];
	muster_error err;
	size_t n, i;

	if (argc != 4 || (n = strtoul(argv[3], NULL, 10)) == 0 || n > 64) {
		fprintf(stderr, "usage: gce_helper repeat|threads CONF N (N <= 64)\n");
		return 2;
	}
	opts.log_level = MUSTER_LOG_DEBUG;
	opts.log = on_log;
	if (muster_ctx_open(&ctx, argv[2], &opts, &err) != 0) {
		fprintf(stderr, "open: %s\n", err.message);
		return 1;
	}
	if (strcmp(argv[1], "repeat") == 0) {
		for (i = 0; i < n; i++)
			one((void *)(uintptr_t)i);
	} else {
		for (i = 0; i < n; i++)
			if (pthread_create(&th[i], NULL, one, (void *)(uintptr_t)i) != 0) {
				fprintf(stderr, "pthread_create failed\n");
				return 1;
			}
		for (i = 0; i < n; i++)
			pthread_join(th[i], NULL);
	}
	for (i = 0; i < n; i++)
		puts(lines[i]);
	muster_ctx_free(ctx);
	if (leaked) {
		fprintf(stderr, "a secret appeared in a log message\n");
		return 1;
	}
	return 0;
}
