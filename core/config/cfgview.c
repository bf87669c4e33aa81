#include <config.h>

#include "cfgview.h"

#include <stdlib.h>
#include <string.h>

#include "suggest.h"

/* The one READ hook every read setting points at. */
static struct cfg_hook read_hook = { CFG_HOOK_READ, NULL };

static const struct cfg_hook *hook_of(const config_setting_t *s)
{
	return config_setting_get_hook(s);
}

static void hook_set(config_setting_t *s, struct cfg_hook *hook)
{
	config_setting_set_hook(s, hook);
}

const config_setting_t *cfgview_setting(const muster_cfg *node)
{
	return (const config_setting_t *)node;
}

const muster_cfg *cfgview_node(const config_setting_t *s)
{
	return (const muster_cfg *)s;
}

void cfgview_begin_open(config_setting_t *group, struct cfg_reads *reads)
{
	memset(reads, 0, sizeof(*reads));
	reads->opening = (struct cfg_hook){ CFG_HOOK_OPENING, reads };
	hook_set(config_root_setting(group->config), &reads->opening);
}

void cfgview_end_open(config_setting_t *group)
{
	hook_set(config_root_setting(group->config), NULL);
}

/* The reads of the open() in progress on the config of `s`, if any. */
static struct cfg_reads *opening(const config_setting_t *s)
{
	const struct cfg_hook *h = s && s->config ? hook_of(config_root_setting(s->config)) : NULL;
	return h && h->kind == CFG_HOOK_OPENING ? h->reads : NULL;
}

static int was_read(const config_setting_t *s)
{
	const struct cfg_hook *h = hook_of(s);
	return h && h->kind == CFG_HOOK_READ;
}

/* Marks only during open(): resolve() may run on many threads at once and
 * must not write to the shared config. */
static void mark_read(const config_setting_t *s)
{
	if (opening(s))
		hook_set((config_setting_t *)s, &read_hook);
}

/* Remembers a key asked for, present or not: the keys a typo is compared
 * with.  Failing to remember costs only a suggestion. */
static void note_asked(const config_setting_t *group, const char *name)
{
	struct cfg_reads *r = opening(group);
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		if (r->asked[i].group == group && strcmp(r->asked[i].name, name) == 0)
			return;
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct cfg_asked *p = realloc(r->asked, cap * sizeof(*p));
		if (!p)
			return;
		r->asked = p;
		r->cap = cap;
	}
	if ((r->asked[r->n].name = strdup(name)) != NULL)
		r->asked[r->n++].group = group;
}

void cfgview_reads_free(struct cfg_reads *reads)
{
	for (size_t i = 0; i < reads->n; i++)
		free(reads->asked[i].name);
	free(reads->asked);
	memset(reads, 0, sizeof(*reads));
}

static const char *suggest_asked(const struct cfg_reads *r, const config_setting_t *group,
                                 const char *name)
{
	const char *best = NULL;
	for (size_t i = 0; r && i < r->n; i++) {
		const char *pair[2] = { best, r->asked[i].name };
		if (r->asked[i].group == group)
			best = suggest_nearest(name, best ? pair : pair + 1, best ? 2 : 1);
	}
	return best;
}

void cfgview_check_unread(const config_setting_t *group, const struct cfg_reads *reads,
                          struct unknowns *unknown)
{
	for (int i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *m = config_setting_get_elem(group, (unsigned)i);
		const char *name = config_setting_name(m);
		if (name && !was_read(m))
			unknown_name(unknown, "option", name, config_setting_source_file(m),
			             (int)config_setting_source_line(m), suggest_asked(reads, group, name));
		else if (config_setting_is_aggregate(m))
			cfgview_check_unread(m, reads, unknown);
	}
}

const muster_cfg *cfgview_get(const muster_cfg *group, const char *name)
{
	const config_setting_t *g = cfgview_setting(group);
	if (!g || !name || config_setting_type(g) != CONFIG_TYPE_GROUP)
		return NULL;
	const config_setting_t *m = config_setting_get_member(g, name);
	note_asked(g, name);
	mark_read(m);
	return cfgview_node(m);
}

int cfgview_type(const muster_cfg *node)
{
	const config_setting_t *s = cfgview_setting(node);
	if (!s)
		return MUSTER_CFG_NONE;
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64: return MUSTER_CFG_INT;
	case CONFIG_TYPE_FLOAT: return MUSTER_CFG_FLOAT;
	case CONFIG_TYPE_STRING: return MUSTER_CFG_STRING;
	case CONFIG_TYPE_BOOL: return MUSTER_CFG_BOOL;
	case CONFIG_TYPE_GROUP: return MUSTER_CFG_GROUP;
	case CONFIG_TYPE_ARRAY: return MUSTER_CFG_ARRAY;
	case CONFIG_TYPE_LIST: return MUSTER_CFG_LIST;
	default: return MUSTER_CFG_NONE;
	}
}

size_t cfgview_count(const muster_cfg *node)
{
	const config_setting_t *s = cfgview_setting(node);
	return s && config_setting_is_aggregate(s) ? (size_t)config_setting_length(s) : 0;
}

const muster_cfg *cfgview_at(const muster_cfg *node, size_t i)
{
	const config_setting_t *s = cfgview_setting(node);
	if (!s || !config_setting_is_aggregate(s) || i >= (size_t)config_setting_length(s))
		return NULL;
	const config_setting_t *el = config_setting_get_elem(s, (unsigned)i);
	mark_read(el);
	return cfgview_node(el);
}

const char *cfgview_name(const muster_cfg *node)
{
	return node ? config_setting_name(cfgview_setting(node)) : NULL;
}

int cfgview_string(const muster_cfg *node, const char **out)
{
	const config_setting_t *s = cfgview_setting(node);
	if (!s || config_setting_type(s) != CONFIG_TYPE_STRING)
		return -1;
	*out = config_setting_get_string(s);
	return 0;
}

int cfgview_int(const muster_cfg *node, long long *out)
{
	const config_setting_t *s = cfgview_setting(node);
	if (!s || (config_setting_type(s) != CONFIG_TYPE_INT &&
	           config_setting_type(s) != CONFIG_TYPE_INT64))
		return -1;
	*out = config_setting_get_int64(s);
	return 0;
}

int cfgview_bool(const muster_cfg *node, int *out)
{
	const config_setting_t *s = cfgview_setting(node);
	if (!s || config_setting_type(s) != CONFIG_TYPE_BOOL)
		return -1;
	*out = config_setting_get_bool(s);
	return 0;
}

int cfgview_float(const muster_cfg *node, double *out)
{
	const config_setting_t *s = cfgview_setting(node);
	if (!s || config_setting_type(s) != CONFIG_TYPE_FLOAT)
		return -1;
	*out = config_setting_get_float(s);
	return 0;
}

const char *cfgview_file(const muster_cfg *node)
{
	return node ? config_setting_source_file(cfgview_setting(node)) : NULL;
}

int cfgview_line(const muster_cfg *node)
{
	return node ? (int)config_setting_source_line(cfgview_setting(node)) : 0;
}
