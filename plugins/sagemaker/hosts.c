/*
 * The two JSON documents SageMaker describes a training cluster with:
 * SM_HOSTS (["algo-1","algo-2"]) and resourceconfig.json
 * ({"current_host": "algo-1", "hosts": ["algo-1", "algo-2"], ...}), read
 * with the strict JSON reader every backend shares
 * (lib/strict_json.h): Python's syntax (TensorFlow reads both
 * with json.loads), a \u0000 escape refused, the last of two "hosts" the
 * one that counts.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/reason.h"
#include "lib/strict_json.h"
#include "sagemaker.h"

void sm_hosts_free(struct sm_hosts *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->names[i]);
	free(h->names);
	free(h->current);
	memset(h, 0, sizeof(*h));
}

/* A list of non-empty strings into out->names. */
static int read_list(const cJSON *list, const char *what, struct sm_hosts *out, char *why,
                     size_t whylen)
{
	size_t n = 0;
	const cJSON *el;

	if (!cJSON_IsArray(list))
		return reason_fail(why, whylen, "%s must be a list of host names, not %s", what,
		                   sjson_kind(list));
	cJSON_ArrayForEach(el, list)
		n++;
	if (n > SM_MAX_HOSTS)
		return reason_fail(why, whylen,
		                   "%s lists %zu hosts, more than %d", what, n, SM_MAX_HOSTS);
	if (n > 0 && (out->names = calloc(n, sizeof(*out->names))) == NULL)
		return reason_fail(why, whylen, "out of memory");
	cJSON_ArrayForEach(el, list) {
		if (!cJSON_IsString(el) || el->valuestring[0] == '\0')
			return reason_fail(why, whylen,
			                   "%s: host %zu must be a non-empty string, not %s", what,
			                   out->n, cJSON_IsString(el) ? "\"\"" : sjson_kind(el));
		if ((out->names[out->n] = strdup(el->valuestring)) == NULL)
			return reason_fail(why, whylen, "out of memory");
		out->n++;
	}
	return 0;
}

int sm_parse_hosts(const char *text, size_t len, struct sm_hosts *out, char *why, size_t whylen)
{
	struct sjson_doc doc;
	int rc;

	if (len == 0)
		return 0;
	if (sjson_parse(text, len, &doc, why, whylen) != SJSON_OK)
		return -1;
	rc = read_list(doc.root, "the value", out, why, whylen);
	sjson_free(&doc);
	return rc;
}

int sm_parse_resource_config(const char *text, size_t len, struct sm_hosts *out, char *why,
                             size_t whylen)
{
	const cJSON *current, *hosts;
	struct sjson_doc doc;
	int rc = -1;

	if (sjson_parse(text, len, &doc, why, whylen) != SJSON_OK)
		return -1;
	current = sjson_member(doc.root, "current_host");
	hosts = sjson_member(doc.root, "hosts");
	if (!cJSON_IsObject(doc.root))
		snprintf(why, whylen, "must be a JSON object, not %s", sjson_kind(doc.root));
	else if (hosts == NULL)
		snprintf(why, whylen, "\"hosts\" is missing");
	else if (!cJSON_IsString(current) || current->valuestring[0] == '\0')
		snprintf(why, whylen, "\"current_host\" must be a non-empty string, not %s",
		         current == NULL ? "missing" : cJSON_IsString(current) ? "\"\""
		                                                                : sjson_kind(current));
	else if (read_list(hosts, "\"hosts\"", out, why, whylen) == 0 &&
	         (out->current = strdup(current->valuestring)) != NULL)
		rc = 0;
	else if (out->current == NULL && why[0] == '\0')
		snprintf(why, whylen, "out of memory");
	sjson_free(&doc);
	return rc;
}
