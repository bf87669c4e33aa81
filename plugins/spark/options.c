/*
 * The spark entry's options (read once, by open()) and the environment
 * (read on every resolve(), because a launcher sets it per process).
 *
 * Config                    Environment (TensorFlowOnSpark's names)
 *   server = "host:port"      TFOS_SERVER_HOST + TFOS_SERVER_PORT
 *   cluster_size (required)   -
 *   executor_id               the variable named by executor_id_variable
 *   num_ps, master_node ("", "chief", "master"), eval_node: the template
 *   reservation_timeout_ms    -  (default 600000, TFoS's 600 s)
 *   io_timeout_ms             -  (default 10000: one request unanswered)
 *   auth_key_file             -  (HMAC-SHA256 frames; both ends muster)
 *   host                      -  (advertised host; default: our address
 *                                 on the connection to the server)
 *   rpc_layer                 -  (default "grpc")
 *                             TENSORFLOW_PORT: fixed TF port, nothing bound
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* strdup */
#endif

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "spark.h"

/* Largest executor id / cluster: TFoS's ids are Spark partition numbers. */
#define SPARK_MAX_CLUSTER 1000000LL

static const char *cfg_kind(const muster_host *host, const muster_cfg *node)
{
	switch (host->cfg_type(node)) {
	case MUSTER_CFG_INT: return "an integer";
	case MUSTER_CFG_FLOAT: return "a float";
	case MUSTER_CFG_STRING: return "a string";
	case MUSTER_CFG_BOOL: return "a boolean";
	case MUSTER_CFG_GROUP: return "a group";
	case MUSTER_CFG_ARRAY: return "an array";
	case MUSTER_CFG_LIST: return "a list";
	default: return "of unknown type";
	}
}

/* An optional string option copied into *out.  0 absent, 1 present, -1 error. */
static int opt_string(const muster_host *host, muster_plugin_ctx *pc, const muster_cfg *root,
                      const char *key, int allow_empty, char **out)
{
	const muster_cfg *node = host->cfg_get(root, key);
	const char *s = NULL;

	if (node == NULL)
		return 0;
	if (host->cfg_string(node, &s) != 0 || s == NULL) {
		host->open_error(pc, node, "%s must be a string, not %s", key, cfg_kind(host, node));
		return -1;
	}
	if (!allow_empty && s[0] == '\0') {
		host->open_error(pc, node, "%s must not be empty", key);
		return -1;
	}
	if ((*out = strdup(s)) == NULL) {
		host->open_error(pc, node, "out of memory");
		return -1;
	}
	return 1;
}

/* An optional integer option in [lo, hi].  0 absent, 1 present, -1 error. */
static int opt_int(const muster_host *host, muster_plugin_ctx *pc, const muster_cfg *root,
                   const char *key, long long lo, long long hi, long long *out)
{
	const muster_cfg *node = host->cfg_get(root, key);
	long long v;

	if (node == NULL)
		return 0;
	if (host->cfg_int(node, &v) != 0) {
		host->open_error(pc, node, "%s must be an integer, not %s", key, cfg_kind(host, node));
		return -1;
	}
	if (v < lo || v > hi) {
		host->open_error(pc, node, "%s must be between %lld and %lld, not %lld", key, lo, hi, v);
		return -1;
	}
	*out = v;
	return 1;
}

/*
 * "host:port", "[v6]:port" or "v6::addr:port" (last colon): the pieces into
 * run-sized buffers.  0, or -1 with a reason.
 */
static int split_server(const char *s, char *host, size_t hostlen, char *port, size_t portlen,
                        char *why, size_t whylen)
{
	const char *colon = strrchr(s, ':');
	const char *h = s, *p;
	size_t hl;
	char *end;
	long v;

	if (colon == NULL) {
		snprintf(why, whylen, "\"%.80s\" is not host:port", s);
		return -1;
	}
	hl = (size_t)(colon - s);
	p = colon + 1;
	if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {
		h = s + 1;
		hl -= 2;
	}
	if (hl == 0 || hl >= hostlen) {
		snprintf(why, whylen, "\"%.80s\": %s host", s, hl == 0 ? "empty" : "too long a");
		return -1;
	}
	errno = 0;
	v = strtol(p, &end, 10);
	if (*p < '0' || *p > '9' || *end != '\0' || errno != 0 || v < 1 || v > 65535 ||
	    strlen(p) >= portlen) {
		snprintf(why, whylen, "\"%.80s\": the port must be a number from 1 to 65535", s);
		return -1;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	snprintf(port, portlen, "%ld", v);
	return 0;
}

static int validate_server(const muster_host *host, muster_plugin_ctx *pc, const muster_cfg *node,
                           const char *server)
{
	char h[256], p[8], why[160];

	if (split_server(server, h, sizeof(h), p, sizeof(p), why, sizeof(why)) != 0) {
		host->open_error(pc, node, "server: %s", why);
		return -1;
	}
	return 0;
}

void spark_conf_free(struct spark_conf *conf)
{
	if (conf == NULL)
		return;
	free(conf->server);
	free(conf->executor_id_variable);
	free(conf->master_node);
	free(conf->host);
	free(conf->rpc_layer);
	OPENSSL_cleanse(conf->key, sizeof(conf->key));
	free(conf);
}

static int read_template(const muster_host *host, muster_plugin_ctx *pc, const muster_cfg *root,
                         struct spark_conf *conf)
{
	const muster_cfg *node;
	long long v = 0;
	char why[200];
	int b = 0;

	switch (opt_int(host, pc, root, "cluster_size", 1, SPARK_MAX_CLUSTER, &v)) {
	case -1:
		return -1;
	case 0:
		host->open_error(pc, NULL, "cluster_size is required: the number of executors "
		                           "(TensorFlowOnSpark's num_executors)");
		return -1;
	}
	conf->tmpl.cluster_size = v;
	v = 0;
	if (opt_int(host, pc, root, "num_ps", 0, SPARK_MAX_CLUSTER, &v) < 0)
		return -1;
	conf->tmpl.num_ps = v;

	if (opt_string(host, pc, root, "master_node", 1, &conf->master_node) < 0)
		return -1;
	if (conf->master_node != NULL && conf->master_node[0] != '\0' &&
	    strcmp(conf->master_node, "chief") != 0 && strcmp(conf->master_node, "master") != 0) {
		host->open_error(pc, host->cfg_get(root, "master_node"),
		                 "master_node must be \"\", \"chief\" or \"master\", not \"%.40s\"",
		                 conf->master_node);
		return -1;
	}
	conf->tmpl.master_node = conf->master_node;

	node = host->cfg_get(root, "eval_node");
	if (node != NULL) {
		if (host->cfg_bool(node, &b) != 0) {
			host->open_error(pc, node, "eval_node must be a boolean, not %s",
			                 cfg_kind(host, node));
			return -1;
		}
		conf->tmpl.eval_node = b != 0;
	}
	if (res_template_check(&conf->tmpl, why, sizeof(why)) != 0) {
		host->open_error(pc, NULL, "the cluster template is impossible: %s", why);
		return -1;
	}
	return 0;
}

static int read_identity(const muster_host *host, muster_plugin_ctx *pc, const muster_cfg *root,
                         struct spark_conf *conf)
{
	long long v = -1;
	int has_id, has_var;

	has_id = opt_int(host, pc, root, "executor_id", 0, SPARK_MAX_CLUSTER, &v);
	if (has_id < 0)
		return -1;
	has_var = opt_string(host, pc, root, "executor_id_variable", 0, &conf->executor_id_variable);
	if (has_var < 0)
		return -1;
	if (has_id && has_var) {
		host->open_error(pc, host->cfg_get(root, "executor_id_variable"),
		                 "executor_id and executor_id_variable exclude each other");
		return -1;
	}
	if (!has_id && !has_var) {
		host->open_error(pc, NULL, "executor_id or executor_id_variable is required: which "
		                           "executor (Spark partition) this process is");
		return -1;
	}
	if (has_var && strchr(conf->executor_id_variable, '=') != NULL) {
		host->open_error(pc, host->cfg_get(root, "executor_id_variable"),
		                 "executor_id_variable must be an environment variable's name, "
		                 "without '='");
		return -1;
	}
	/* TFoS would make such an executor job "default", index -1: in a
	 * resolver that is a misconfiguration, so say it here. */
	if (has_id && v >= conf->tmpl.cluster_size) {
		host->open_error(pc, host->cfg_get(root, "executor_id"),
		                 "executor_id %lld is outside the cluster of %lld executors (ids 0 "
		                 "to %lld)", v, (long long)conf->tmpl.cluster_size,
		                 (long long)conf->tmpl.cluster_size - 1);
		return -1;
	}
	conf->executor_id = has_id ? v : -1;
	return 0;
}

static int read_key(const muster_host *host, muster_plugin_ctx *pc, const muster_cfg *root,
                    struct spark_conf *conf)
{
	char *path = NULL;
	char why[300];
	int rc;

	rc = opt_string(host, pc, root, "auth_key_file", 0, &path);
	if (rc <= 0)
		return rc;
	/* Read now, so a missing or exposed key is a config error with its line. */
	if (res_auth_key_load(path, conf->key, &conf->key_len, why, sizeof(why)) != 0) {
		host->open_error(pc, host->cfg_get(root, "auth_key_file"), "%s", why);
		free(path);
		return -1;
	}
	free(path);
	conf->have_key = true;
	return 0;
}

int spark_conf_open(const muster_host *host, muster_plugin_ctx *pc, struct spark_conf **out)
{
	const muster_cfg *root;
	struct spark_conf *conf;
	long long v;

	conf = calloc(1, sizeof(*conf));
	if (conf == NULL) {
		host->open_error(pc, NULL, "out of memory");
		return -1;
	}
	conf->pc = pc;
	conf->reservation_timeout_ms = SPARK_DEFAULT_RESERVATION_TIMEOUT_MS;
	conf->io_timeout_ms = SPARK_DEFAULT_IO_TIMEOUT_MS;
	root = host->cfg_root(pc);

	switch (opt_string(host, pc, root, "server", 0, &conf->server)) {
	case -1:
		goto fail;
	case 1:
		if (validate_server(host, pc, host->cfg_get(root, "server"), conf->server) != 0)
			goto fail;
	}
	if (read_template(host, pc, root, conf) != 0 || read_identity(host, pc, root, conf) != 0)
		goto fail;
	v = conf->reservation_timeout_ms;
	if (opt_int(host, pc, root, "reservation_timeout_ms", 1, 86400000, &v) < 0)
		goto fail;
	conf->reservation_timeout_ms = (long)v;
	v = conf->io_timeout_ms;
	if (opt_int(host, pc, root, "io_timeout_ms", 1, 86400000, &v) < 0)
		goto fail;
	conf->io_timeout_ms = (long)v;
	if (opt_string(host, pc, root, "host", 0, &conf->host) < 0 ||
	    opt_string(host, pc, root, "rpc_layer", 1, &conf->rpc_layer) < 0)
		goto fail;
	if (conf->host != NULL && strpbrk(conf->host, "[]/ ") != NULL) {
		host->open_error(pc, host->cfg_get(root, "host"),
		                 "host must be a bare name or address (no brackets, port or spaces)");
		goto fail;
	}
	if (conf->rpc_layer == NULL && (conf->rpc_layer = strdup("grpc")) == NULL) {
		host->open_error(pc, NULL, "out of memory");
		goto fail;
	}
	if (read_key(host, pc, root, conf) != 0)
		goto fail;
	*out = conf;
	return 0;
fail:
	spark_conf_free(conf);
	return -1;
}

/* A decimal integer in [lo, hi] from the environment.  0, or -1. */
static int env_int(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	long long v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	if (errno != 0 || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static muster_status server_from_env(struct spark_run *run)
{
	const char *h = getenv("TFOS_SERVER_HOST");
	const char *p = getenv("TFOS_SERVER_PORT");
	long long v;

	if ((h == NULL || h[0] == '\0') && (p == NULL || p[0] == '\0')) {
		run->host->fail(run->call, "no reservation server: neither the server option nor "
		                           "TFOS_SERVER_HOST/TFOS_SERVER_PORT is set");
		return MUSTER_STATUS_NOTFOUND;
	}
	if (h == NULL || h[0] == '\0' || p == NULL || p[0] == '\0') {
		run->host->fail(run->call, "%s is set but %s is not: the client needs both",
		                h != NULL && h[0] ? "TFOS_SERVER_HOST" : "TFOS_SERVER_PORT",
		                h != NULL && h[0] ? "TFOS_SERVER_PORT" : "TFOS_SERVER_HOST");
		return MUSTER_STATUS_UNAVAIL;
	}
	if (strchr(p, '-') != NULL) {
		/* The driver binds the first free port of a range; a client cannot
		 * know which, and guessing could reach another job's server. */
		run->host->fail(run->call, "TFOS_SERVER_PORT is a range (\"%.40s\"): a client needs "
		                           "the one port the server bound", p);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (env_int(p, 1, 65535, &v) != 0) {
		run->host->fail(run->call, "TFOS_SERVER_PORT must be a port from 1 to 65535, "
		                           "not \"%.40s\"", p);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (h[0] == '[' && h[strlen(h) - 1] == ']' && strlen(h) > 2) {
		h++; /* a bracketed IPv6 address */
		snprintf(run->server_host, sizeof(run->server_host), "%.*s", (int)strlen(h) - 1, h);
	} else if (strlen(h) >= sizeof(run->server_host)) {
		run->host->fail(run->call, "TFOS_SERVER_HOST is too long");
		return MUSTER_STATUS_UNAVAIL;
	} else {
		snprintf(run->server_host, sizeof(run->server_host), "%s", h);
	}
	snprintf(run->server_port, sizeof(run->server_port), "%lld", v);
	return MUSTER_STATUS_SUCCESS;
}

muster_status spark_read_env(struct spark_run *run)
{
	const struct spark_conf *conf = run->conf;
	const char *s;
	char why[160];
	long long v;
	muster_status st;

	if (conf->server != NULL) {
		if (split_server(conf->server, run->server_host, sizeof(run->server_host),
		                 run->server_port, sizeof(run->server_port), why, sizeof(why)) != 0) {
			run->host->fail(run->call, "server: %s", why); /* checked by open() */
			return MUSTER_STATUS_UNAVAIL;
		}
	} else if ((st = server_from_env(run)) != MUSTER_STATUS_SUCCESS) {
		return st;
	}

	run->executor_id = conf->executor_id;
	if (conf->executor_id_variable != NULL) {
		s = getenv(conf->executor_id_variable);
		if (s == NULL) {
			/* Not a Spark executor of this job: let the chain go on. */
			run->host->fail(run->call, "%s is not set: no executor id",
			                conf->executor_id_variable);
			return MUSTER_STATUS_NOTFOUND;
		}
		if (env_int(s, 0, SPARK_MAX_CLUSTER, &v) != 0) {
			run->host->fail(run->call, "%s must be an executor id (an integer from 0), "
			                           "not \"%.40s\"", conf->executor_id_variable, s);
			return MUSTER_STATUS_UNAVAIL;
		}
		run->executor_id = v;
	}
	if (run->executor_id >= conf->tmpl.cluster_size) {
		run->host->fail(run->call, "executor id %lld is outside the cluster of %lld executors",
		                (long long)run->executor_id, (long long)conf->tmpl.cluster_size);
		return MUSTER_STATUS_UNAVAIL;
	}

	run->fixed_port = -1;
	s = getenv("TENSORFLOW_PORT");
	if (s != NULL && s[0] != '\0') {
		if (env_int(s, 1, 65535, &v) != 0) {
			run->host->fail(run->call, "TENSORFLOW_PORT must be a port from 1 to 65535, "
			                           "not \"%.40s\"", s);
			return MUSTER_STATUS_UNAVAIL;
		}
		run->fixed_port = (long)v;
	}
	return MUSTER_STATUS_SUCCESS;
}
