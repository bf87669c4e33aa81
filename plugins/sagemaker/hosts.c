/*
 * The two JSON documents SageMaker describes a training cluster with:
 * SM_HOSTS (["algo-1","algo-2"]) and resourceconfig.json
 * ({"current_host": "algo-1", "hosts": ["algo-1", "algo-2"], ...}).
 */
#include "config.h"
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* strdup */
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "sagemaker.h"

void sm_hosts_free(struct sm_hosts *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->names[i]);
	free(h->names);
	free(h->current);
	memset(h, 0, sizeof(*h));
}

static const char *json_kind(const cJSON *v)
{
	if (cJSON_IsObject(v))
		return "an object";
	if (cJSON_IsArray(v))
		return "a list";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	return "null";
}

static cJSON *parse(const char *text, size_t len, char *why, size_t whylen)
{
	const char *end = NULL;
	cJSON *doc;

	if (memchr(text, '\0', len) != NULL) {
		snprintf(why, whylen, "not JSON: a NUL byte");
		return NULL;
	}
	doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	while (doc != NULL && end != NULL && end < text + len &&
	       (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
		end++;
	if (doc != NULL && end != text + len) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	if (doc == NULL)
		snprintf(why, whylen, "not JSON (at byte %zu)",
		         end != NULL && end >= text ? (size_t)(end - text) : (size_t)0);
	return doc;
}

/* A list of non-empty strings into out->names. */
static int read_list(const cJSON *list, const char *what, struct sm_hosts *out, char *why,
                     size_t whylen)
{
	size_t n = 0;
	const cJSON *el;

	if (!cJSON_IsArray(list)) {
		snprintf(why, whylen, "%s must be a list of host names, not %s", what,
		         json_kind(list));
		return -1;
	}
	cJSON_ArrayForEach(el, list)
		n++;
	if (n > SM_MAX_HOSTS) {
		snprintf(why, whylen, "%s lists %zu hosts, more than %d", what, n, SM_MAX_HOSTS);
		return -1;
	}
	if (n > 0 && (out->names = calloc(n, sizeof(*out->names))) == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	cJSON_ArrayForEach(el, list) {
		if (!cJSON_IsString(el) || el->valuestring[0] == '\0') {
			snprintf(why, whylen, "%s: host %zu must be a non-empty string, not %s", what,
			         out->n, cJSON_IsString(el) ? "\"\"" : json_kind(el));
			return -1;
		}
		if ((out->names[out->n] = strdup(el->valuestring)) == NULL) {
			snprintf(why, whylen, "out of memory");
			return -1;
		}
		out->n++;
	}
	return 0;
}

int sm_parse_hosts(const char *text, size_t len, struct sm_hosts *out, char *why, size_t whylen)
{
	cJSON *doc;
	int rc;

	if (len == 0)
		return 0;
	if ((doc = parse(text, len, why, whylen)) == NULL)
		return -1;
	rc = read_list(doc, "the value", out, why, whylen);
	cJSON_Delete(doc);
	return rc;
}

int sm_parse_resource_config(const char *text, size_t len, struct sm_hosts *out, char *why,
                             size_t whylen)
{
	const cJSON *current, *hosts;
	cJSON *doc;
	int rc = -1;

	if ((doc = parse(text, len, why, whylen)) == NULL)
		return -1;
	current = cJSON_GetObjectItemCaseSensitive(doc, "current_host");
	hosts = cJSON_GetObjectItemCaseSensitive(doc, "hosts");
	if (!cJSON_IsObject(doc))
		snprintf(why, whylen, "must be a JSON object, not %s", json_kind(doc));
	else if (hosts == NULL)
		snprintf(why, whylen, "\"hosts\" is missing");
	else if (!cJSON_IsString(current) || current->valuestring[0] == '\0')
		snprintf(why, whylen, "\"current_host\" must be a non-empty string, not %s",
		         current == NULL ? "missing" : cJSON_IsString(current) ? "\"\""
		                                                                : json_kind(current));
	else if (read_list(hosts, "\"hosts\"", out, why, whylen) == 0 &&
	         (out->current = strdup(current->valuestring)) != NULL)
		rc = 0;
	else if (out->current == NULL && why[0] == '\0')
		snprintf(why, whylen, "out of memory");
	cJSON_Delete(doc);
	return rc;
}
