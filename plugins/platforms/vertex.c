/*
 * A Vertex AI custom training replica, docs/platforms.md §12: CLUSTER_SPEC
 * (strict JSON, lib/strict_json.h).
 *
 *   {"cluster": {"workerpool0": ["host:port"], "workerpool1": [...], ...},
 *    "task": {"type": "workerpool1", "index": 0, ...}, ...}
 *
 * Pools become TensorFlow's jobs, as Vertex's own TF_CONFIG names them:
 * workerpool0 the chief (the primary replica, the master), workerpool1
 * worker, workerpool2 ps (parameter servers or the Reduction Server:
 * trains nothing), workerpool3 evaluator.  The launch's world is the jobs
 * that train — chief, then worker — so a Reduction Server and evaluators
 * hold no rank (docs/decisions.md); `--jobs chief,worker,evaluator` puts
 * the evaluators in.  Own task: task.type's job, task.index.  Ports: as
 * given.  Where Vertex also sets TF_CONFIG the tf_config entry, earlier,
 * answers with the same training world.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "lib/address.h"
#include "lib/strict_json.h"
#include "platforms.h"

static const char *const pools[] = { "workerpool0", "workerpool1", "workerpool2",
                                     "workerpool3" };
static const char *const jobs[] = { "chief", "worker", "ps", "evaluator" };
#define NPOOLS 4

static int pool_of(const char *key)
{
	for (int i = 0; i < NPOOLS; i++)
		if (strcmp(key, pools[i]) == 0)
			return i;
	return -1;
}

/* One pool's addresses into the result: 0, or -1 after fail(). */
static int add_pool(struct pf_run *run, int pool, const cJSON *list)
{
	char why[300];
	long i = 0;

	if (!cJSON_IsArray(list)) {
		run->host->fail(run->call, "CLUSTER_SPEC: cluster.%s must be a list, not %s",
		                pools[pool], sjson_kind(list));
		return -1;
	}
	if (muster_plugin_add_job_sized(run->host, run->call, jobs[pool],
	                                cJSON_GetArraySize(list)) != 0)
		return -1;
	for (const cJSON *item = list->child; item != NULL; item = item->next, i++) {
		if (!cJSON_IsString(item) || address_check(item->valuestring, why, sizeof(why)) != 0) {
			run->host->fail(run->call, "CLUSTER_SPEC: cluster.%s[%ld] %s%s", pools[pool], i,
			                cJSON_IsString(item) ? "" : "must be a \"host:port\" string, not ",
			                cJSON_IsString(item) ? why : sjson_kind(item));
			return -1;
		}
		if (run->host->add_task(run->call, jobs[pool], i, item->valuestring) != 0)
			return -1;
	}
	return 0;
}

static muster_status build(struct pf_run *run, const cJSON *root)
{
	const cJSON *cluster = sjson_member(root, "cluster"), *task = sjson_member(root, "task");
	const cJSON *type = sjson_member(task, "type"), *index = sjson_member(task, "index");
	const cJSON *given[NPOOLS] = { NULL };
	int own;

	if (!cJSON_IsObject(cluster))
		return pf_unavail(run, "CLUSTER_SPEC has no \"cluster\" object");
	for (const cJSON *p = cluster->child; p != NULL; p = p->next) {
		int pool = pool_of(p->string);

		if (pool < 0)
			return pf_unavail(run, "CLUSTER_SPEC: cluster has \"%.64s\"; Vertex AI's pools "
			                       "are workerpool0 to workerpool3", p->string);
		given[pool] = sjson_member(cluster, pools[pool]); /* the last of a repeated key */
	}
	if (given[0] == NULL)
		return pf_unavail(run, "CLUSTER_SPEC: cluster has no workerpool0, the primary replica");
	if (!cJSON_IsString(type) || (own = pool_of(type->valuestring)) < 0 || given[own] == NULL)
		return pf_unavail(run, "CLUSTER_SPEC: task.type must name a pool of the cluster%s%s%s",
		                  cJSON_IsString(type) ? ", not \"" : "",
		                  cJSON_IsString(type) ? type->valuestring : "",
		                  cJSON_IsString(type) ? "\"" : "");
	if (!cJSON_IsNumber(index) || index->valuedouble < 0 ||
	    index->valuedouble != (double)(long)index->valuedouble ||
	    (long)index->valuedouble >= (long)cJSON_GetArraySize(given[own]))
		return pf_unavail(run, "CLUSTER_SPEC: task.index must be an index of cluster.%s",
		                  pools[own]);
	for (int pool = 0; pool < NPOOLS; pool++)
		if (given[pool] != NULL && add_pool(run, pool, given[pool]) != 0)
			return MUSTER_STATUS_UNAVAIL;
	return pf_finish(run, jobs[own], (long)index->valuedouble, MUSTER_PLACEMENT_NODES);
}

muster_status pf_vertex(struct pf_run *run)
{
	const char *text = env_str(&run->env, "CLUSTER_SPEC");
	struct sjson_doc doc = { 0 };
	char why[400];
	muster_status st;

	if (text == NULL)
		return pf_notfound(run, "CLUSTER_SPEC is not set: not a Vertex AI replica");
	switch (sjson_parse(text, strlen(text), &doc, why, sizeof(why))) {
	case SJSON_OK:
		break;
	case SJSON_NOMEM:
		return pf_unavail(run, "CLUSTER_SPEC: out of memory");
	default:
		return pf_unavail(run, "CLUSTER_SPEC is %s", why);
	}
	st = build(run, doc.root);
	sjson_free(&doc);
	return st;
}
