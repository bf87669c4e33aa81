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
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <muster/plugin.h>

#include "tf_config.h"
#include "lib/env.h"
#include "plugins/common/filewatch.h"
#include "plugins/common/popts.h"

static void tfc_close(void *state)
{
	struct tfc_conf *conf = state;

	if (conf == NULL)
		return;
	free(conf->variable);
	free(conf->file);
	free(conf->task_type);
	free(conf->rpc_layer);
	free(conf->environment);
	free(conf);
}

/* An empty task_type would override with a job that cannot exist. */
static const muster_popt options[] = {
	MUSTER_POPT_STRING("variable", struct tfc_conf, variable, 0, NULL),
	MUSTER_POPT_STRING("file", struct tfc_conf, file, 0, NULL),
	MUSTER_POPT_STRING("task_type", struct tfc_conf, task_type, 0, NULL),
	MUSTER_POPT_STRING("rpc_layer", struct tfc_conf, rpc_layer, MUSTER_POPT_EMPTY, NULL),
	MUSTER_POPT_STRING("environment", struct tfc_conf, environment, MUSTER_POPT_EMPTY, NULL),
	MUSTER_POPT_INT("task_id", struct tfc_conf, task_id, 0, TFC_MAX_INDEX, -1),
};

/* The rules between options; `o` has read them all. */
static int check_conf(const muster_popts *o, void *state)
{
	struct tfc_conf *conf = state;

	conf->pc = o->pc;
	if (conf->variable != NULL && strchr(conf->variable, '=') != NULL)
		return popt_fail(o, o->host->cfg_get(o->group, "variable"),
		                 "variable must be an environment variable's name, without '='");
	if (conf->file != NULL && conf->variable != NULL)
		return popt_fail(o, o->host->cfg_get(o->group, "file"),
		                 "file and variable exclude each other: TF_CONFIG is read from "
		                 "one or the other");
	if (conf->file == NULL && conf->variable == NULL)
		return muster_popt_copy(o, NULL, "TF_CONFIG", &conf->variable);
	return 0;
}

static int tfc_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	*state = muster_plugin_conf_read(host, pc, sizeof(struct tfc_conf), options,
	                                 MUSTER_POPT_COUNT(options), check_conf, tfc_close);
	return *state != NULL ? 0 : -1;
}

static muster_status tfc_resolve(void *state, const muster_host *host, muster_call *call)
{
	const struct tfc_conf *conf = state;
	struct tfc_run run;
	char *text = NULL;
	size_t len = 0;
	struct sjson_doc doc = {0};
	muster_status st;

	run.host = host;
	run.call = call;
	run.conf = conf;
	run.src = conf->file != NULL ? conf->file : conf->variable;

	st = tfc_read_input(&run, &text, &len);
	/* For muster resolve --explain: what was read, else the variable as it
	 * is set (an empty one is set). */
	muster_plugin_note_input(host, call, run.src,
	                         text != NULL || conf->file != NULL ? text
	                                                            : env_get(conf->variable));
	if (st == MUSTER_STATUS_SUCCESS)
		st = tfc_parse(&run, text, len, &doc);
	free(text); /* the tree has copies of its strings */
	if (st == MUSTER_STATUS_SUCCESS)
		st = tfc_build(&run, doc.root);
	sjson_free(&doc);
	return st;
}

/* The file form changes when the file does; the environment never does. */
static int tfc_watch(void *state, const muster_host *host, muster_plugin_ctx *pc,
                     muster_watcher *w)
{
	const struct tfc_conf *conf = state;
	return filewatch_run(host, pc, w, conf->file);
}

static const muster_plugin tfc_plugin = {
	MUSTER_PLUGIN_HEADER,
	/* It detects a TensorFlow job from its environment: MUSTER_NO_DETECT
	 * turns it off like the schedulers. */
	MUSTER_PLUGIN_THREADSAFE | MUSTER_PLUGIN_DETECTS,
	"tf_config",
	PACKAGE_VERSION,
	tfc_open,
	tfc_resolve,
	tfc_close,
	tfc_watch,
};

MUSTER_PLUGIN_DEFINE(tfc_plugin)
