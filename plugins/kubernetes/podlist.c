/*
 * kubernetes: one page of a PodList into pod records.
 *
 * A page is about 1.4 MB of JSON for 500 pods, of which the answer needs a
 * few dozen bytes per pod.  The answer is gathered (decoded, if gzip) in
 * a json_page.cc buffer (reused from page to page), checked whole by
 * simdjson, and walked as events, on a helper thread when list.c overlaps
 * it with the next fetch: a stack of frames says where in the document the walk is, the
 * objects that hold nothing of interest are stepped over unread, and pod.c
 * keeps the fields of the item being read.
 *
 * Every field read is type-checked: a wrong type is an error that names the
 * item and the field, never a crash.  Errors are ranked as a whole-document
 * check ranks them (invalid JSON first, then the page's own shape, then the
 * first bad item), so the message does not depend on where in the page it
 * is.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_page.h"
#include "k8s.h"

/* Where a value is: the frames of interest. */
enum frame_kind {
	F_ROOT, F_LISTMETA, F_ITEMS, F_POD, F_META, F_LABELS, F_SPEC, F_CONTAINERS, F_INITS,
	F_CONTAINER, F_PORTS, F_PORT, F_RESOURCES, F_LIMITS, F_REQUESTS, F_STATUS
};

/* The keys of interest (0: any other). */
enum {
	K_OTHER, K_KIND, K_METADATA, K_ITEMS, K_CONTINUE, K_SPEC, K_STATUS, K_NAME, K_NAMESPACE,
	K_LABELS, K_DELETION, K_CONTAINERS, K_INITS, K_PORTS, K_RESOURCES, K_POLICY, K_CPORT,
	K_LIMITS, K_REQUESTS, K_PHASE, K_IP
};

/* The page's own errors, most important first: the order in which a
 * check of the whole document finds them. */
enum { E_NONE, E_ROOT, E_KIND, E_ITEMS_TYPE, E_NO_ITEMS, E_META_TYPE, E_ITEM, E_CONTINUE };

/* Indexed by enum json_kind. */
static const char *const kind_name[] = { "a string", "a number", "an object",
                                         "an array", "a boolean", "null" };

#define MAX_FRAMES 10 /* root items pod spec containers container resources limits */

struct frame {
	enum frame_kind kind;
	int key;               /* maps: the current key (labels: a bit per slot + 1) */
	size_t index;          /* arrays: the current element */
};

struct k8s_page {
	/* Set once: what the walk reads (read-only, so a helper thread may walk). */
	const struct k8s_conf *conf;
	const char **resources; /* every conf resource name, flat */
	struct json_page *json; /* the bytes, gathered by k8s_page_fetch */
	/* One fetch, then one walk. */
	char what[600];        /* the request, for messages */
	size_t selector;
	struct k8s_podvec *out;
	struct frame stack[MAX_FRAMES];
	size_t depth;          /* frames in use */
	int nomem, seen_root, seen_items;
	struct k8s_item item;
	size_t nitem;          /* items[nitem] being read */
	char *cont;
	int error;             /* E_*: the most important so far */
	char msg[600];
	int walked;            /* json_page_walk's answer */
	size_t at;             /* JSON_PAGE_INVALID: where, and why */
	char why[160];
};

static void page_bad(struct k8s_page *pg, int error, const char *fmt, ...) MUSTER_PLUGIN_PRINTF(3, 4);

static void page_bad(struct k8s_page *pg, int error, const char *fmt, ...)
{
	va_list ap;

	if (pg->error != E_NONE && pg->error <= error)
		return;
	va_start(ap, fmt);
	vsnprintf(pg->msg, sizeof(pg->msg), fmt, ap);
	va_end(ap);
	pg->error = error;
}

/* A member that must be of JSON kind `want` when present; null is absent. */
static int want(struct k8s_page *pg, enum json_kind j, enum json_kind want_j, const char *path,
                const char *key)
{
	int named;

	if (j == JSON_NULL)
		return 0;
	if (j == want_j)
		return 1;
	/* As a tree walk finds errors: before the pod's name is known. */
	named = path[0] != '\0' && !(strcmp(path, "metadata.") == 0 && strcmp(key, "name") == 0);
	k8s_item_bad(&pg->item, named, "%s%s is %s; expected %s", path, key, kind_name[j], kind_name[want_j]);
	return 0;
}

static void push(struct k8s_page *pg, enum frame_kind kind)
{
	struct frame *f = &pg->stack[pg->depth++];

	f->kind = kind;
	f->key = K_OTHER;
	f->index = 0;
}

static int key_is(const char *k, size_t len, const char *s)
{
	return strlen(s) == len && memcmp(k, s, len) == 0;
}

static int on_key(void *ctx, const char *k, size_t len)
{
	struct k8s_page *pg = ctx;
	struct frame *f = &pg->stack[pg->depth - 1];
	const struct k8s_conf *conf = pg->conf;
	size_t i;

	f->key = K_OTHER;
	switch (f->kind) {
	case F_ROOT:
		f->key = key_is(k, len, "kind") ? K_KIND : key_is(k, len, "metadata") ? K_METADATA
		         : key_is(k, len, "items") ? K_ITEMS : K_OTHER;
		break;
	case F_LISTMETA:
		f->key = key_is(k, len, "continue") ? K_CONTINUE : K_OTHER;
		break;
	case F_POD:
		f->key = key_is(k, len, "metadata") ? K_METADATA : key_is(k, len, "spec") ? K_SPEC
		         : key_is(k, len, "status") ? K_STATUS : K_OTHER;
		break;
	case F_META:
		f->key = key_is(k, len, "name") ? K_NAME : key_is(k, len, "namespace") ? K_NAMESPACE
		         : key_is(k, len, "labels") ? K_LABELS
		         : key_is(k, len, "deletionTimestamp") ? K_DELETION : K_OTHER;
		break;
	case F_LABELS:
		f->key = 0;
		if (conf->address == K8S_ADDR_KUBEFLOW)
			for (i = 0; i < K8S_LAB_CONF; i++)
				if (key_is(k, len, k8s_kubeflow_labels[i]))
					f->key |= 1 << i;
		if (conf->index_label != NULL && key_is(k, len, conf->index_label))
			f->key |= 1 << K8S_LAB_CONF;
		break;
	case F_SPEC:
		f->key = key_is(k, len, "containers") ? K_CONTAINERS
		         : key_is(k, len, "initContainers") ? K_INITS : K_OTHER;
		break;
	case F_CONTAINER:
		f->key = key_is(k, len, "name") ? K_NAME : key_is(k, len, "ports") ? K_PORTS
		         : key_is(k, len, "resources") ? K_RESOURCES
		         : key_is(k, len, "restartPolicy") ? K_POLICY : K_OTHER;
		break;
	case F_PORT:
		f->key = key_is(k, len, "name") ? K_NAME : key_is(k, len, "containerPort") ? K_CPORT
		                                                                          : K_OTHER;
		break;
	case F_RESOURCES:
		f->key = key_is(k, len, "limits") ? K_LIMITS : key_is(k, len, "requests") ? K_REQUESTS
		                                                                          : K_OTHER;
		break;
	case F_LIMITS:
	case F_REQUESTS:
		f->key = 0;
		for (i = 0; i < conf->nresources; i++)
			if (key_is(k, len, pg->resources[i])) {
				f->key = (int)i + 1;
				break;
			}
		break;
	case F_STATUS:
		f->key = key_is(k, len, "phase") ? K_PHASE
		         : (conf->address == K8S_ADDR_HOST_IP && key_is(k, len, "hostIP")) ||
		                   (conf->address == K8S_ADDR_POD_IP && key_is(k, len, "podIP"))
		             ? K_IP
		             : K_OTHER;
		break;
	default:
		break;
	}
	return 0;
}

static int keep_string(struct k8s_page *pg, size_t *field, const char *s, size_t len)
{
	if (k8s_item_string(&pg->item, field, s, len) < 0) {
		pg->nomem = 1;
		return 0;
	}
	return 1;
}

/* A value in an item (the top frame is F_POD or deeper); `j` its kind, a
 * scalar's text in s/len.  Answers the frame to push for a map or array
 * (F_ROOT: none, skip it). */
static enum frame_kind item_value(struct k8s_page *pg, struct frame *f, enum json_kind j,
                                  const char *s, size_t len, double num)
{
	struct k8s_item *it = &pg->item;
	const struct k8s_conf *conf = pg->conf;
	int accel = conf->nresources > 0;
	int l;

	switch (f->kind) {
	case F_POD:
		if (f->key == K_METADATA && want(pg, j, JSON_OBJECT, "", "metadata"))
			return F_META;
		if (f->key == K_SPEC && want(pg, j, JSON_OBJECT, "", "spec"))
			return F_SPEC;
		if (f->key == K_STATUS && want(pg, j, JSON_OBJECT, "", "status"))
			return F_STATUS;
		break;
	case F_META:
		if (f->key == K_NAME && want(pg, j, JSON_STRING, "metadata.", "name"))
			keep_string(pg, &it->name, s, len);
		else if (f->key == K_NAMESPACE && want(pg, j, JSON_STRING, "metadata.", "namespace"))
			keep_string(pg, &it->ns, s, len);
		else if (f->key == K_LABELS && want(pg, j, JSON_OBJECT, "metadata.", "labels"))
			return F_LABELS;
		else if (f->key == K_DELETION && want(pg, j, JSON_STRING, "metadata.", "deletionTimestamp"))
			it->terminating = 1;
		break;
	case F_LABELS:
		for (l = 0; l < K8S_NLABELS; l++)
			if ((f->key & (1 << l)) && j != JSON_NULL) {
				if (j != JSON_STRING)
					it->label_kind[l] = kind_name[j];
				else if (!keep_string(pg, &it->label[l], s, len))
					return F_ROOT;
			}
		break;
	case F_SPEC:
		if (f->key == K_CONTAINERS && want(pg, j, JSON_ARRAY, "spec.", "containers"))
			return F_CONTAINERS;
		if (f->key == K_INITS && want(pg, j, JSON_ARRAY, "spec.", "initContainers"))
			return F_INITS;
		break;
	case F_CONTAINERS:
	case F_INITS:
		if (j == JSON_OBJECT) {
			k8s_item_container_begin(it, f->kind == F_INITS);
			return F_CONTAINER;
		}
		if (accel)
			k8s_item_bad(it, 1, "spec.%s[%zu] is %s; expected an object",
			             f->kind == F_INITS ? "initContainers" : "containers", f->index,
			             kind_name[j]);
		break;
	case F_CONTAINER: {
		const char *path = f[-1].kind == F_INITS ? "spec.initContainers[]." : "spec.containers[].";
		int ports = conf->port_name != NULL && f[-1].kind == F_CONTAINERS && !it->port_done;

		if (f->key == K_PORTS && ports && want(pg, j, JSON_ARRAY, path, "ports"))
			return F_PORTS;
		if (!accel)
			break;
		if (f->key == K_NAME && want(pg, j, JSON_STRING, path, "name"))
			keep_string(pg, &it->cname, s, len);
		else if (f->key == K_RESOURCES && want(pg, j, JSON_OBJECT, path, "resources"))
			return F_RESOURCES;
		else if (f->key == K_POLICY && f[-1].kind == F_INITS &&
		         want(pg, j, JSON_STRING, path, "restartPolicy"))
			it->always = len == 6 && memcmp(s, "Always", 6) == 0;
		break;
	}
	case F_PORTS:
		if (j == JSON_OBJECT && !it->port_done) {
			it->pname_match = 0;
			it->cport_kind = NULL;
			return F_PORT;
		}
		break;
	case F_PORT:
		if (f->key == K_NAME && want(pg, j, JSON_STRING, "spec.containers[].ports[].", "name"))
			it->pname_match = strlen(conf->port_name) == len &&
			                  memcmp(s, conf->port_name, len) == 0;
		else if (f->key == K_CPORT && j != JSON_NULL && it->cport_kind == NULL) {
			it->cport_kind = kind_name[j];
			if (j == JSON_NUMBER)
				it->cport = num;
		}
		break;
	case F_RESOURCES: {
		const char *path = f[-2].kind == F_INITS ? "spec.initContainers[]." : "spec.containers[].";

		if (f->key == K_LIMITS && want(pg, j, JSON_OBJECT, path, "limits"))
			return F_LIMITS;
		if (f->key == K_REQUESTS && want(pg, j, JSON_OBJECT, path, "requests"))
			return F_REQUESTS;
		break;
	}
	case F_LIMITS:
	case F_REQUESTS:
		if (f->key > 0)
			k8s_item_quantity(it, f->kind == F_LIMITS, (size_t)f->key - 1,
			                  j == JSON_NUMBER || j == JSON_STRING ? NULL : kind_name[j],
			                  j == JSON_NUMBER, num, s, len);
		break;
	case F_STATUS:
		if (f->key == K_PHASE && want(pg, j, JSON_STRING, "status.", "phase"))
			keep_string(pg, &it->phase, s, len);
		else if (f->key == K_IP &&
		         want(pg, j, JSON_STRING, "status.",
		              conf->address == K8S_ADDR_HOST_IP ? "hostIP" : "podIP"))
			keep_string(pg, &it->ip, s, len);
		break;
	default:
		break;
	}
	return F_ROOT;
}

/* Any value: scalars are used or dropped, objects and arrays entered or
 * stepped over. */
static int on_value(void *ctx, enum json_kind j, const char *s, size_t len, double num)
{
	struct k8s_page *pg = ctx;
	struct frame *f;
	enum frame_kind next = F_ROOT;

	if (!pg->seen_root) {
		pg->seen_root = 1;
		if (j != JSON_OBJECT) {
			page_bad(pg, E_ROOT, "%s: the answer is %s; expected a PodList object", pg->what,
			         kind_name[j]);
			return JSON_SKIP;
		}
		push(pg, F_ROOT);
		return JSON_ENTER;
	}
	f = &pg->stack[pg->depth - 1];
	switch (f->kind) {
	case F_ROOT:
		if (f->key == K_KIND && j == JSON_STRING && (len != 7 || memcmp(s, "PodList", 7) != 0))
			page_bad(pg, E_KIND, "%s: the answer is a %.*s; expected a PodList", pg->what,
			         len > 40 ? 40 : (int)len, s);
		else if (f->key == K_METADATA && j == JSON_OBJECT)
			next = F_LISTMETA;
		else if (f->key == K_METADATA && j != JSON_NULL)
			page_bad(pg, E_META_TYPE, "%s: metadata is %s; expected an object", pg->what,
			         kind_name[j]);
		else if (f->key == K_ITEMS && !pg->seen_items) {
			pg->seen_items = 1;
			if (j == JSON_ARRAY)
				next = F_ITEMS;
			else if (j != JSON_NULL)
				page_bad(pg, E_ITEMS_TYPE, "%s: items is %s; expected an array", pg->what,
				         kind_name[j]);
		}
		break;
	case F_LISTMETA:
		if (f->key == K_CONTINUE && j == JSON_STRING && pg->cont == NULL) {
			if ((pg->cont = strndup(s, len)) == NULL)
				pg->nomem = 1;
		} else if (f->key == K_CONTINUE && j != JSON_NULL && j != JSON_STRING) {
			page_bad(pg, E_CONTINUE, "%s: metadata.continue is %s; expected a string",
			         pg->what, kind_name[j]);
		}
		break;
	case F_ITEMS:
		if (pg->error != E_NONE && pg->error <= E_ITEM)
			break; /* an item failed: the rest is stepped over */
		pg->nitem = f->index;
		if (j == JSON_OBJECT) {
			k8s_item_begin(&pg->item);
			next = F_POD;
		} else {
			page_bad(pg, E_ITEM, "%s: items[%zu]: is %s; expected a pod object", pg->what,
			         f->index, kind_name[j]);
		}
		break;
	default:
		next = item_value(pg, f, j, s, len, num);
		break;
	}
	if (f->kind == F_ITEMS || f->kind == F_CONTAINERS || f->kind == F_INITS ||
	    f->kind == F_PORTS)
		f->index++;
	if (pg->nomem)
		return JSON_STOP;
	if (next == F_ROOT || pg->depth == MAX_FRAMES)
		return JSON_SKIP;
	push(pg, next);
	return JSON_ENTER;
}

/* The end of a map or array: what its end completes. */
static int on_end(void *ctx)
{
	struct k8s_page *pg = ctx;
	struct frame *f = &pg->stack[--pg->depth];
	int rc;

	switch (f->kind) {
	case F_CONTAINER:
		if (pg->conf->nresources > 0)
			k8s_item_container_end(&pg->item);
		break;
	case F_PORT:
		k8s_item_port_end(&pg->item);
		break;
	case F_POD:
		rc = k8s_item_end(&pg->item, pg->selector, pg->out);
		if (rc == -2) {
			pg->nomem = 1;
			return JSON_STOP;
		}
		if (rc < 0 && pg->item.err_named)
			page_bad(pg, E_ITEM, "%s: items[%zu] (pod %s): %s", pg->what, pg->nitem,
			         pg->item.str.data + pg->item.name - 1, pg->item.err);
		else if (rc < 0)
			page_bad(pg, E_ITEM, "%s: items[%zu]: %s", pg->what, pg->nitem, pg->item.err);
		break;
	default:
		break;
	}
	return 1;
}

static const struct json_events events = { on_value, on_key, on_end };

struct k8s_page *k8s_page_new(const struct k8s_conf *conf)
{
	struct k8s_page *pg = calloc(1, sizeof(*pg));
	size_t k, r, i = 0;

	if (pg == NULL)
		return NULL;
	pg->conf = conf;
	if (k8s_item_init(&pg->item, conf) < 0 ||
	    (pg->resources = calloc(conf->nresources + 1, sizeof(*pg->resources))) == NULL ||
	    (pg->json = json_page_new()) == NULL) {
		k8s_page_free(pg);
		return NULL;
	}
	for (k = 0; k < conf->nkinds; k++)
		for (r = 0; r < conf->kinds[k].nresources; r++)
			pg->resources[i++] = conf->kinds[k].resources[r];
	return pg;
}

void k8s_page_free(struct k8s_page *pg)
{
	if (pg == NULL)
		return;
	free(pg->resources);
	free(pg->cont);
	json_page_free(pg->json);
	k8s_item_free(&pg->item);
	free(pg);
}

/* The answer's bytes, gathered in the page (http.c bounds them). */
static char *page_room(void *ctx, size_t n)
{
	return json_page_room(ctx, n);
}

static void page_wrote(void *ctx, size_t n)
{
	json_page_wrote(ctx, n);
}

void k8s_page_begin(struct k8s_page *pg, const char *what, struct k8s_sink *sink)
{
	sink->room = page_room;
	sink->wrote = page_wrote;
	sink->ctx = pg->json;
	snprintf(pg->what, sizeof(pg->what), "%s", what);
	json_page_reset(pg->json);
}

muster_status k8s_page_fetch(struct k8s_run *run, struct k8s_page *pg, const char *path,
                             const char *what, long *code)
{
	struct k8s_sink sink;

	k8s_page_begin(pg, what, &sink);
	return k8s_http_get(run, path, &sink, code);
}

char *k8s_page_continue_hint(const struct k8s_page *pg)
{
	return k8s_continue_hint(json_page_data(pg->json), json_page_size(pg->json));
}

void k8s_page_walk(struct k8s_page *pg, struct json_parser *parser, size_t selector,
                   struct k8s_podvec *out)
{
	pg->selector = selector;
	pg->out = out;
	pg->depth = 0;
	pg->nomem = pg->seen_root = pg->seen_items = 0;
	pg->nitem = 0;
	free(pg->cont);
	pg->cont = NULL;
	pg->error = E_NONE;
	pg->msg[0] = '\0';
	pg->at = 0;
	pg->why[0] = '\0';
	if (json_page_size(pg->json) == 0)
		pg->walked = JSON_PAGE_OK; /* the verdict says "empty" */
	else
		pg->walked = json_page_walk(parser, pg->json, &events, pg, &pg->at, pg->why,
		                            sizeof(pg->why));
}

/* The walked page, judged. */
muster_status k8s_page_verdict(struct k8s_run *run, struct k8s_page *pg, char **cont)
{
	size_t bytes = json_page_size(pg->json);

	*cont = NULL;
	if (bytes == 0) {
		run->host->fail(run->call, "%s: the answer is empty; expected a PodList", pg->what);
		return MUSTER_STATUS_UNAVAIL;
	}
	if (pg->walked == JSON_PAGE_NOMEM || pg->nomem)
		return k8s_nomem(run);
	if (pg->walked == JSON_PAGE_INVALID && pg->at < bytes)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "%s: the answer is not valid JSON at byte %zu of %zu: %s",
		                     pg->what, pg->at, bytes, pg->why);
	if (pg->walked == JSON_PAGE_INVALID)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL,
		                     "%s: the answer is not valid JSON (%zu bytes): %s", pg->what,
		                     bytes, pg->why);
	if (pg->error == E_NONE && !pg->seen_items)
		page_bad(pg, E_NO_ITEMS, "%s: the answer has no items; expected a PodList", pg->what);
	if (pg->error != E_NONE)
		return plugin_answer(run->host, run->call, MUSTER_STATUS_UNAVAIL, "%s", pg->msg);
	if (pg->cont != NULL && pg->cont[0] != '\0') {
		*cont = pg->cont;
		pg->cont = NULL;
	}
	return MUSTER_STATUS_SUCCESS;
}
