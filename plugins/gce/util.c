/*
 * gce: small helpers — JSON getters, pages, strings.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gce.h"
#include "plugins/common/media.h"

const char *gce_basename(const char *url)
{
	const char *s = strrchr(url, '/');

	return s != NULL ? s + 1 : url;
}

muster_status gce_nomem(struct gce_run *run)
{
	run->host->fail(run->call, "out of memory");
	return MUSTER_STATUS_UNAVAIL;
}

const char *gce_json_str(const cJSON *obj, const char *key)
{
	const cJSON *m = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;

	return cJSON_IsString(m) ? m->valuestring : NULL;
}

cJSON *gce_json_parse(struct gce_run *run, const char *what, const struct pbuf *b)
{
	const char *end = NULL;
	cJSON *root;

	if (media_not_json(run->answer_type)) {
		run->host->fail(run->call, "%s: HTTP 200 OK: the server answered %s, not JSON", what,
		                run->answer_type);
		return NULL;
	}
	if (b->data == NULL || b->len == 0) {
		run->host->fail(run->call, "%s: the answer is empty", what);
		return NULL;
	}
	root = cJSON_ParseWithLengthOpts(b->data, b->len, &end, 0);
	if (root == NULL) {
		size_t at = end != NULL && end >= b->data ? (size_t)(end - b->data) : 0;

		run->host->fail(run->call, "%s: the answer is not valid JSON (error at byte %zu of %zu)",
		                what, at, b->len);
		return NULL;
	}
	if (!cJSON_IsObject(root)) {
		run->host->fail(run->call, "%s: the answer is not a JSON object", what);
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

muster_status gce_next_page(struct gce_run *run, const char *what, size_t page,
                            const cJSON *root, char **token)
{
	const char *next = gce_json_str(root, "nextPageToken");

	if (next != NULL && next[0] != '\0' && *token != NULL && strcmp(next, *token) == 0)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "%s (page %zu): the API repeats page token", what, page);
	free(*token);
	*token = NULL;
	if (next == NULL || next[0] == '\0')
		return MUSTER_STATUS_SUCCESS;
	if ((*token = strdup(next)) == NULL)
		return gce_nomem(run);
	return MUSTER_STATUS_SUCCESS;
}

muster_status gce_list(struct gce_run *run, const char *what, const char *method, const char *url,
                       const char *body, gce_page_fn *page_fn, void *arg)
{
	char *token = NULL;
	struct pbuf b;
	muster_status st = MUSTER_STATUS_SUCCESS;
	size_t page;

	pbuf_init(&b, GCE_MAX_PAGE);
	for (page = 1; page <= GCE_MAX_PAGES; page++) {
		char *etok = token != NULL ? curl_easy_escape(run->curl, token, 0) : NULL;
		char *next = etok != NULL ? plugin_asprintf("%s&pageToken=%s", url, etok) : NULL;

		curl_free(etok);
		if (token != NULL && next == NULL) {
			st = gce_nomem(run);
			break;
		}
		st = gce_api(run, what, method, next != NULL ? next : url, body, &b);
		free(next);
		if (st == MUSTER_STATUS_SUCCESS)
			st = page_fn(run, what, page, &b, &token, arg);
		if (st != MUSTER_STATUS_SUCCESS || token == NULL)
			break;
	}
	if (st == MUSTER_STATUS_SUCCESS && page > GCE_MAX_PAGES) {
		run->host->fail(run->call, "%s: more than %d pages", what, GCE_MAX_PAGES);
		st = MUSTER_STATUS_UNAVAIL;
	}
	free(token);
	pbuf_free(&b);
	return st;
}

cJSON *gce_page_items(struct gce_run *run, const char *what, size_t page, const struct pbuf *b,
                      const cJSON **items)
{
	cJSON *root = gce_json_parse(run, what, b);

	if (root == NULL)
		return NULL;
	*items = cJSON_GetObjectItemCaseSensitive(root, "items");
	if (*items != NULL && !cJSON_IsArray(*items)) {
		run->host->fail(run->call, "%s (page %zu): items is not an array", what, page);
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}
