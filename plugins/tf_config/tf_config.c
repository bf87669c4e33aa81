/*
 * tf_config: the cluster from a TF_CONFIG JSON document, as TensorFlow's
 * TFConfigClusterResolver reads it.
 *
 * Options (the entry's `config` group):
 *   variable     environment variable to read (default "TF_CONFIG")
 *   file         read the JSON from this file instead (excludes `variable`)
 *   task_type    TFConfigClusterResolver(task_type=...): overrides task.type
 *   task_id      TFConfigClusterResolver(task_id=...): overrides task.index
 *   rpc_layer    TFConfigClusterResolver(rpc_layer=...): overrides rpc_layer;
 *                "" is an override too (master() then has no prefix)
 *   environment  TFConfigClusterResolver(environment=...)
 *
 * Like TensorFlow, the input is read again on every resolve (TF parses
 * TF_CONFIG on every property access and caches nothing); open() only reads
 * the options.  Each override wins on its own, as in TF's newest source.
 *
 * resolve() keeps everything in locals, so one state serves many threads.
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* strdup */
#endif

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <muster/plugin.h>

#include "tf_config.h"

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

/* An optional string option, copied into *out (left NULL when absent).
 * 0, 1 when present, or -1 after open_error(). */
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
	*out = strdup(s);
	if (*out == NULL) {
		host->open_error(pc, node, "out of memory");
		return -1;
	}
	return 1;
}

static void conf_free(struct tfc_conf *conf)
{
	if (conf == NULL)
		return;
	free(conf->variable);
	free(conf->file);
	free(conf->task_type);
	free(conf->rpc_layer);
	free(conf->environment);
	free(conf);
}

static int tfc_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	const muster_cfg *root, *node;
	struct tfc_conf *conf;
	int has_variable;

	if (host->abi_major != MUSTER_PLUGIN_ABI_MAJOR) {
		host->open_error(pc, NULL, "host speaks plugin ABI %u, this plugin %d",
		                 (unsigned)host->abi_major, MUSTER_PLUGIN_ABI_MAJOR);
		return -1;
	}
	conf = calloc(1, sizeof(*conf));
	if (conf == NULL) {
		host->open_error(pc, NULL, "out of memory");
		return -1;
	}
	conf->pc = pc;
	conf->task_id = -1;
	root = host->cfg_root(pc);

	has_variable = opt_string(host, pc, root, "variable", 0, &conf->variable);
	if (has_variable < 0)
		goto fail;
	if (conf->variable != NULL && strchr(conf->variable, '=') != NULL) {
		host->open_error(pc, host->cfg_get(root, "variable"),
		                 "variable must be an environment variable's name, without '='");
		goto fail;
	}
	switch (opt_string(host, pc, root, "file", 0, &conf->file)) {
	case -1:
		goto fail;
	case 1:
		if (has_variable) {
			host->open_error(pc, host->cfg_get(root, "file"),
			                 "file and variable exclude each other: TF_CONFIG is read "
			                 "from one or the other");
			goto fail;
		}
		break;
	default:
		if (conf->variable == NULL && (conf->variable = strdup("TF_CONFIG")) == NULL) {
			host->open_error(pc, NULL, "out of memory");
			goto fail;
		}
	}
	/* An empty task_type would override with a job that cannot exist. */
	if (opt_string(host, pc, root, "task_type", 0, &conf->task_type) < 0 ||
	    opt_string(host, pc, root, "rpc_layer", 1, &conf->rpc_layer) < 0 ||
	    opt_string(host, pc, root, "environment", 1, &conf->environment) < 0)
		goto fail;

	node = host->cfg_get(root, "task_id");
	if (node != NULL) {
		long long id;

		if (host->cfg_int(node, &id) != 0) {
			host->open_error(pc, node, "task_id must be an integer, not %s",
			                 cfg_kind(host, node));
			goto fail;
		}
		if (id < 0 || id > TFC_MAX_INDEX) {
			host->open_error(pc, node, "task_id must be between 0 and %ld, not %lld",
			                 TFC_MAX_INDEX, id);
			goto fail;
		}
		conf->task_id = (long)id;
	}
	*state = conf;
	return 0;
fail:
	conf_free(conf);
	return -1;
}

static muster_status tfc_resolve(void *state, const muster_host *host, muster_call *call)
{
	const struct tfc_conf *conf = state;
	struct tfc_run run;
	char *text = NULL;
	size_t len = 0;
	struct tfc_doc doc = {0};
	muster_status st;

	run.host = host;
	run.call = call;
	run.conf = conf;
	run.src = conf->file != NULL ? conf->file : conf->variable;

	st = tfc_read_input(&run, &text, &len);
	if (st == MUSTER_STATUS_SUCCESS)
		st = tfc_parse(&run, text, len, &doc);
	free(text); /* the tree has copies of its strings */
	if (st == MUSTER_STATUS_SUCCESS)
		st = tfc_build(&run, doc.root);
	tfc_doc_free(&doc);
	return st;
}

static void tfc_close(void *state)
{
	conf_free(state);
}

static const muster_plugin tfc_plugin = {
	MUSTER_PLUGIN_HEADER,
	MUSTER_PLUGIN_THREADSAFE,
	"tf_config",
	PACKAGE_VERSION,
	tfc_open,
	tfc_resolve,
	tfc_close,
};

MUSTER_PLUGIN_DEFINE(tfc_plugin)
