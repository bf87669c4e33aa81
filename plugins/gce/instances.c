/*
 * gce: where the members are — one paged instances.list per zone, with a
 * filter (status = RUNNING) and a `fields` selection (names, the
 * interfaces' addresses, guestAccelerators), instead of TF's one
 * instances.get per member.
 *
 * Address: networkInterfaces[interface] — "internal": networkIP (an
 * IPv6-only interface: ipv6Address); "external": accessConfigs[0].natIP
 * (else ipv6AccessConfigs[0].externalIpv6).  Accelerators: each
 * guestAccelerators entry's acceleratorType basename ("nvidia-tesla-a100",
 * "nvidia-h100-80gb", ...) counts as GPU, a name with "tpu" as TPU.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gce.h"
#include "lib/vec.h"

#define FIELDS                                                                              \
	"nextPageToken,items(name,status,networkInterfaces(networkIP,ipv6Address,"          \
	"accessConfigs(natIP),ipv6AccessConfigs(externalIpv6)),"                             \
	"guestAccelerators(acceleratorType,acceleratorCount))"

void gce_instvec_free(struct gce_instvec *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		free(v->v[i].name);
		free(v->v[i].ip);
	}
	free(v->v);
	memset(v, 0, sizeof(*v));
}

/* The first element's `key` of array `arr` of `obj`, a string or NULL. */
static const char *first_of(const cJSON *obj, const char *arr, const char *key)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, arr);

	return cJSON_IsArray(a) ? gce_json_str(cJSON_GetArrayItem(a, 0), key) : NULL;
}

static const char *pick_address(const struct gce_conf *conf, const cJSON *item)
{
	const cJSON *nics = cJSON_GetObjectItemCaseSensitive(item, "networkInterfaces");
	const cJSON *nic = cJSON_IsArray(nics) ? cJSON_GetArrayItem(nics, (int)conf->interface)
	                                       : NULL;
	const char *ip;

	if (!cJSON_IsObject(nic))
		return NULL;
	if (conf->address == GCE_ADDR_INTERNAL)
		return (ip = gce_json_str(nic, "networkIP")) != NULL ? ip
		                                                     : gce_json_str(nic, "ipv6Address");
	return (ip = first_of(nic, "accessConfigs", "natIP")) != NULL
	           ? ip
	           : first_of(nic, "ipv6AccessConfigs", "externalIpv6");
}

static muster_status parse_item(struct gce_run *run, const char *what, size_t page, size_t i,
                                const cJSON *item, struct gce_instvec *out)
{
	const char *name = gce_json_str(item, "name"), *status = gce_json_str(item, "status");
	const cJSON *acc = cJSON_GetObjectItemCaseSensitive(item, "guestAccelerators"), *a;
	const char *ip;
	struct gce_inst *in;

	if (name == NULL || name[0] == '\0')
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "%s (page %zu): items[%zu] has no name", what, page, i);
	if (status != NULL && strcmp(status, "RUNNING") != 0)
		return MUSTER_STATUS_SUCCESS; /* the filter said RUNNING; be sure */
	if (acc != NULL && !cJSON_IsArray(acc))
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "%s (page %zu): instance %s: guestAccelerators is not an "
		                     "array", what, page, name);
	if (vec_reserve(&out->v, &out->cap, out->n + 1, sizeof(*out->v)) < 0)
		return gce_nomem(run);
	in = &out->v[out->n];
	memset(in, 0, sizeof(*in));
	ip = pick_address(run->conf, item);
	if ((in->name = strdup(name)) == NULL || (ip != NULL && (in->ip = strdup(ip)) == NULL)) {
		free(in->name);
		return gce_nomem(run);
	}
	out->n++;
	cJSON_ArrayForEach(a, acc)
	{
		const char *type = gce_json_str(a, "acceleratorType");
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(a, "acceleratorCount");
		double n = cJSON_IsNumber(c) ? c->valuedouble : 0;

		if (type == NULL || n < 1 || n > 1024)
			return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
			                     "%s (page %zu): instance %s: a guestAccelerators "
			                     "entry lacks acceleratorType or a count", what, page,
			                     name);
		if (strstr(gce_basename(type), "tpu") != NULL)
			in->tpus += (long)n;
		else
			in->gpus += (long)n;
	}
	return MUSTER_STATUS_SUCCESS;
}

/* One answer of instances.list: its RUNNING instances appended to `out`,
 * *token replaced by the next page's. */
muster_status gce_instances_page(struct gce_run *run, const char *what, size_t page,
                                 const struct pbuf *b, struct gce_instvec *out, char **token)
{
	const cJSON *items = NULL, *it;
	cJSON *root = gce_page_items(run, what, page, b, &items);
	muster_status st = MUSTER_STATUS_SUCCESS;
	size_t i = 0;

	if (root == NULL)
		return MUSTER_STATUS_UNAVAIL;
	cJSON_ArrayForEach(it, items)
	{
		if ((st = parse_item(run, what, page, i++, it, out)) != MUSTER_STATUS_SUCCESS)
			break;
	}
	if (st == MUSTER_STATUS_SUCCESS)
		st = gce_next_page(run, what, page, root, token);
	cJSON_Delete(root);
	return st;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct gce_inst *)a)->name, ((const struct gce_inst *)b)->name);
}

static muster_status instances_page(struct gce_run *run, const char *what, size_t page,
                                    const struct pbuf *b, char **token, void *out)
{
	return gce_instances_page(run, what, page, b, out, token);
}

muster_status gce_instances(struct gce_run *run, const char *zone, struct gce_instvec *out)
{
	char what[300], *url, *efields = curl_easy_escape(run->curl, FIELDS, 0);
	muster_status st;

	url = efields == NULL ? NULL
	      : plugin_asprintf("%s/projects/%s/zones/%s/instances?filter=status%%20%%3D%%20"
	                        "RUNNING&fields=%s&maxResults=%ld",
	                        run->conf->endpoint, run->project, zone, efields,
	                        run->conf->page_size);
	curl_free(efields);
	if (url == NULL)
		return gce_nomem(run);
	snprintf(what, sizeof(what), "instances of zone %s (project %s)", zone, run->project);
	st = gce_list(run, what, "GET", url, NULL, instances_page, out);
	free(url);
	if (st == MUSTER_STATUS_SUCCESS && out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), by_name);
	return st;
}
