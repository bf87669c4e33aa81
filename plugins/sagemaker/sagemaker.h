/*
 * sagemaker backend: internal interfaces between its files.
 *
 *   sagemaker.c  descriptor, open()/close(), resolve(): where the hosts
 *                come from (SM_HOSTS and SM_CURRENT_HOST, else the
 *                resource_config file)
 *   options.c    the entry's options
 *   hosts.c      the JSON documents, SM_HOSTS and resourceconfig.json, read
 *                with the shared strict JSON reader
 *   build.c      the cluster: hosts sorted as strings, one job `worker`
 */
#ifndef MUSTER_PLUGINS_SAGEMAKER_H
#define MUSTER_PLUGINS_SAGEMAKER_H

#include <stddef.h>

#include <muster/plugin.h>

#include "plugins/common/answer.h"

/* SageMaker's own path of the training job's resource configuration. */
#define SM_DEFAULT_RESOURCE_CONFIG "/opt/ml/input/config/resourceconfig.json"
/* The largest SM_HOSTS or resourceconfig.json read. */
#define SM_MAX_INPUT ((size_t)4 << 20)
/* Hosts accepted at most. */
#define SM_MAX_HOSTS 65536

struct sm_conf {
	long port;
	char *rpc_layer;        /* NULL: none, as TensorFlow's default */
	char *resource_config;
};

/* A list of host names (one allocation each) and the current host. */
struct sm_hosts {
	char **names;
	size_t n;
	char *current;
};

void sm_hosts_free(struct sm_hosts *h);

/* options.c: the descriptor's open() and close(). */
int sm_open(const muster_host *host, muster_plugin_ctx *pc, void **state);
void sm_close(void *state);

/* hosts.c: `text` is len bytes with text[len] == '\0'; 0, or -1 with a
 * reason in `why` (the caller names the source).
 * SM_HOSTS: a JSON list of strings; "" is no host, as TensorFlow reads it. */
int sm_parse_hosts(const char *text, size_t len, struct sm_hosts *out, char *why, size_t whylen);
/* resourceconfig.json: its "hosts" and "current_host". */
int sm_parse_resource_config(const char *text, size_t len, struct sm_hosts *out, char *why,
                             size_t whylen);

/* build.c */
muster_status sm_build(const muster_host *host, muster_call *call, const struct sm_conf *conf,
                       struct sm_hosts *h, const char *hosts_src, const char *current_src);

#endif
