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
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spark.h"
#include "lib/env.h"
#include "lib/reason.h"
#include "plugins/common/popts.h"

/* Largest executor id / cluster: TFoS's ids are Spark partition numbers. */
#define SPARK_MAX_CLUSTER 1000000L

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

	if (colon == NULL)
		return reason_fail(why, whylen, "\"%.80s\" is not host:port", s);
	hl = (size_t)(colon - s);
	p = colon + 1;
	if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {
		h = s + 1;
		hl -= 2;
	}
	if (hl == 0 || hl >= hostlen)
		return reason_fail(why, whylen,
		                   "\"%.80s\": %s host", s, hl == 0 ? "empty" : "too long a");
	errno = 0;
	v = strtol(p, &end, 10);
	if (*p < '0' || *p > '9' || *end != '\0' || errno != 0 || v < 1 || v > 65535 ||
	    strlen(p) >= portlen) {
		return reason_fail(why, whylen,
		                   "\"%.80s\": the port must be a number from 1 to 65535", s);
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	snprintf(port, portlen, "%ld", v);
	return 0;
}

void spark_close(void *state)
{
	struct spark_conf *conf = state;

	if (conf == NULL)
		return;
	free(conf->server);
	free(conf->executor_id_variable);
	free(conf->master_node);
	free(conf->host);
	free(conf->rpc_layer);
	explicit_bzero(conf->key, sizeof(conf->key)); /* the wire's rule (auth.c) */
	free(conf);
}

/* Read now, so a missing or exposed key is a config error with its line. */
static int read_key(const muster_popts *o, const muster_cfg *node, void *base)
{
	struct spark_conf *conf = base;
	const char *path;
	char why[300];

	if (node == NULL)
		return 0;
	if (muster_popt_node_string(o, node, "auth_key_file", 0, &path) < 0)
		return -1;
	if (res_auth_key_load(path, conf->key, &conf->key_len, why, sizeof(why)) != 0)
		return popt_fail(o, node, "%s", why);
	conf->have_key = true;
	return 0;
}

static const muster_popt options[] = {
	MUSTER_POPT_STRING("server", struct spark_conf, server, 0, NULL),
	MUSTER_POPT_REQUIRED_INT("cluster_size", struct spark_conf, tmpl.cluster_size, 1,
	                         SPARK_MAX_CLUSTER, "the number of executors (TensorFlowOnSpark's "
	                                            "num_executors)"),
	MUSTER_POPT_INT("num_ps", struct spark_conf, tmpl.num_ps, 0, SPARK_MAX_CLUSTER, 0),
	MUSTER_POPT_STRING("master_node", struct spark_conf, master_node, MUSTER_POPT_EMPTY, NULL),
	MUSTER_POPT_BOOL("eval_node", struct spark_conf, tmpl.eval_node, 0),
	MUSTER_POPT_INT("executor_id", struct spark_conf, executor_id, 0, SPARK_MAX_CLUSTER, -1),
	MUSTER_POPT_STRING("executor_id_variable", struct spark_conf, executor_id_variable, 0, NULL),
	MUSTER_POPT_INT("reservation_timeout_ms", struct spark_conf, reservation_timeout_ms, 1,
	                86400000, SPARK_DEFAULT_RESERVATION_TIMEOUT_MS),
	MUSTER_POPT_INT("io_timeout_ms", struct spark_conf, io_timeout_ms, 1, 86400000,
	                SPARK_DEFAULT_IO_TIMEOUT_MS),
	MUSTER_POPT_STRING("host", struct spark_conf, host, 0, NULL),
	MUSTER_POPT_STRING("rpc_layer", struct spark_conf, rpc_layer, MUSTER_POPT_EMPTY, "grpc"),
	MUSTER_POPT_CUSTOM("auth_key_file", read_key),
};

static int check_identity(const muster_popts *o, struct spark_conf *conf)
{
	const muster_host *host = o->host;
	const muster_cfg *id = host->cfg_get(o->group, "executor_id");
	const muster_cfg *var = host->cfg_get(o->group, "executor_id_variable");

	if (id != NULL && var != NULL)
		return popt_fail(o, var, "executor_id and executor_id_variable exclude each other");
	if (id == NULL && var == NULL)
		return popt_fail(o, NULL,
		                 "executor_id or executor_id_variable is required: which executor "
		                 "(Spark partition) this process is");
	if (var != NULL && strchr(conf->executor_id_variable, '=') != NULL)
		return popt_fail(o, var,
		                 "executor_id_variable must be an environment variable's name, "
		                 "without '='");
	/* TFoS would make such an executor job "default", index -1: in a
	 * resolver that is a misconfiguration, so say it here. */
	if (id != NULL && conf->executor_id >= conf->tmpl.cluster_size)
		return popt_fail(o, id,
		                 "executor_id %lld is outside the cluster of %lld executors (ids "
		                 "0 to %lld)", (long long)conf->executor_id,
		                 (long long)conf->tmpl.cluster_size,
		                 (long long)conf->tmpl.cluster_size - 1);
	return 0;
}

/* The rules between options; `o` has read them all. */
static int check_conf(const muster_popts *o, void *state)
{
	const muster_host *host = o->host;
	struct spark_conf *conf = state;
	char h[256], p[8], why[200];

	conf->pc = o->pc;

	if (conf->server != NULL &&
	    split_server(conf->server, h, sizeof(h), p, sizeof(p), why, sizeof(why)) != 0)
		return popt_fail(o, host->cfg_get(o->group, "server"), "server: %s", why);
	if (conf->master_node != NULL && conf->master_node[0] != '\0' &&
	    strcmp(conf->master_node, "chief") != 0 && strcmp(conf->master_node, "master") != 0)
		return popt_fail(o, host->cfg_get(o->group, "master_node"),
		                 "master_node must be \"\", \"chief\" or \"master\", not \"%.40s\"",
		                 conf->master_node);
	if (conf->host != NULL && strpbrk(conf->host, "[]/ ") != NULL)
		return popt_fail(o, host->cfg_get(o->group, "host"),
		                 "host must be a bare name or address (no brackets, port or "
		                 "spaces)");
	conf->tmpl.master_node = conf->master_node;
	if (res_template_check(&conf->tmpl, why, sizeof(why)) != 0)
		return popt_fail(o, NULL, "the cluster template is impossible: %s", why);
	return check_identity(o, conf);
}

int spark_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	*state = muster_plugin_conf_read(host, pc, sizeof(struct spark_conf), options,
	                                 MUSTER_POPT_COUNT(options), check_conf, spark_close);
	return *state != NULL ? 0 : -1;
}

/* A variable that is set and not empty; NULL otherwise. */
static const char *nonempty(struct env_reader *env, const char *name)
{
	const char *s = env_str(env, name);

	return s != NULL && s[0] != '\0' ? s : NULL;
}

static muster_status server_from_env(struct spark_run *run, struct env_reader *env)
{
	const char *h = nonempty(env, "TFOS_SERVER_HOST");
	const char *p = nonempty(env, "TFOS_SERVER_PORT");
	long v;

	if (h == NULL && p == NULL)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_NOTFOUND,
		                     "no reservation server: neither the server option nor "
		                     "TFOS_SERVER_HOST/TFOS_SERVER_PORT is set");
	if (h == NULL || p == NULL)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "%s is set but %s is not: the client needs both",
		                     h != NULL ? "TFOS_SERVER_HOST" : "TFOS_SERVER_PORT",
		                     h != NULL ? "TFOS_SERVER_PORT" : "TFOS_SERVER_HOST");
	if (strchr(p, '-') != NULL) {
		/* The driver binds the first free port of a range; a client cannot
		 * know which, and guessing could reach another job's server. */
		run->host->fail(run->call, "TFOS_SERVER_PORT is a range (\"%.40s\"): a client needs "
		                           "the one port the server bound", p);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (env_int(env, "TFOS_SERVER_PORT", 1, 65535, &v) < 0)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL, "%s", env->why);
	if (h[0] == '[' && h[strlen(h) - 1] == ']' && strlen(h) > 2) {
		h++; /* a bracketed IPv6 address */
		snprintf(run->server_host, sizeof(run->server_host), "%.*s", (int)strlen(h) - 1, h);
	} else if (strlen(h) >= sizeof(run->server_host)) {
		run->host->fail(run->call, "TFOS_SERVER_HOST is too long");
		return MUSTER_STATUS_UNAVAIL;
	} else {
		snprintf(run->server_host, sizeof(run->server_host), "%s", h);
	}
	snprintf(run->server_port, sizeof(run->server_port), "%ld", v);
	return MUSTER_STATUS_SUCCESS;
}

muster_status spark_read_env(struct spark_run *run)
{
	const struct spark_conf *conf = run->conf;
	struct env_reader env = ENV_READER_INIT;
	char why[160];
	long v;
	int rc;
	muster_status st;

	if (conf->server != NULL) {
		if (split_server(conf->server, run->server_host, sizeof(run->server_host),
		                 run->server_port, sizeof(run->server_port), why, sizeof(why)) != 0) {
			run->host->fail(run->call, "server: %s", why); /* checked by open() */
			return MUSTER_STATUS_UNAVAIL;
		}
	} else if ((st = server_from_env(run, &env)) != MUSTER_STATUS_SUCCESS) {
		return st;
	}

	run->executor_id = conf->executor_id;
	if (conf->executor_id_variable != NULL) {
		rc = env_int(&env, conf->executor_id_variable, 0, SPARK_MAX_CLUSTER, &v);
		/* Unset: not a Spark executor of this job; let the chain go on. */
		if (rc <= 0) {
			run->host->fail(run->call, "%s%s", env.why, rc == 0 ? ": no executor id" : "");
			return rc == 0 ? MUSTER_STATUS_NOTFOUND : MUSTER_STATUS_UNAVAIL;
		}
		run->executor_id = v;
	}
	if (run->executor_id >= conf->tmpl.cluster_size)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "executor id %lld is outside the cluster of %lld executors",
		                     (long long)run->executor_id,
		                     (long long)conf->tmpl.cluster_size);

	run->fixed_port = -1;
	if (nonempty(&env, "TENSORFLOW_PORT") != NULL) {
		if (env_int(&env, "TENSORFLOW_PORT", 1, 65535, &v) < 0)
			return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
			                     "%s", env.why);
		run->fixed_port = v;
	}
	return MUSTER_STATUS_SUCCESS;
}
