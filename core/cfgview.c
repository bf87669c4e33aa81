#include "config.h"

#include "cfgview.h"

#include "settings.h"

/* Hook values: a read key, and (on a file's root) "a plugin is opening". */
static char read_mark;
static char opening_mark;

static const config_setting_t *setting(const muster_cfg *node)
{
	return (const config_setting_t *)node;
}

const muster_cfg *cfgview_node(const config_setting_t *s)
{
	return (const muster_cfg *)s;
}

void cfgview_begin_open(config_setting_t *group)
{
	config_setting_set_hook(config_root_setting(group->config), &opening_mark);
}

void cfgview_end_open(config_setting_t *group)
{
	config_setting_set_hook(config_root_setting(group->config), NULL);
}

/* Marks only during open(): resolve() may run on many threads at once and
 * must not write to the shared config. */
static void mark_read(const config_setting_t *s)
{
	if (s && s->config && config_setting_get_hook(config_root_setting(s->config)) == &opening_mark)
		config_setting_set_hook((config_setting_t *)s, &read_mark);
}

void cfgview_warn_unread(const config_setting_t *group, const struct logger *lg,
                         const char *prefix)
{
	for (int i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *m = config_setting_get_elem(group, (unsigned)i);
		const char *name = config_setting_name(m);
		if (name && config_setting_get_hook(m) != &read_mark) {
			char where[512];
			settings_where(m, where, sizeof(where));
			log_msg(lg, MUSTER_LOG_WARNING, "%s%sunknown key '%s' (ignored)", where, prefix,
			        name);
			continue;
		}
		if (config_setting_is_aggregate(m))
			cfgview_warn_unread(m, lg, prefix);
	}
}

const muster_cfg *cfgview_get(const muster_cfg *group, const char *name)
{
	const config_setting_t *g = setting(group);
	if (!g || !name || config_setting_type(g) != CONFIG_TYPE_GROUP)
		return NULL;
	const config_setting_t *m = config_setting_get_member(g, name);
	mark_read(m);
	return cfgview_node(m);
}

int cfgview_type(const muster_cfg *node)
{
	const config_setting_t *s = setting(node);
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
	const config_setting_t *s = setting(node);
	return s && config_setting_is_aggregate(s) ? (size_t)config_setting_length(s) : 0;
}

const muster_cfg *cfgview_at(const muster_cfg *node, size_t i)
{
	const config_setting_t *s = setting(node);
	if (!s || !config_setting_is_aggregate(s) || i >= (size_t)config_setting_length(s))
		return NULL;
	const config_setting_t *el = config_setting_get_elem(s, (unsigned)i);
	mark_read(el);
	return cfgview_node(el);
}

const char *cfgview_name(const muster_cfg *node)
{
	return node ? config_setting_name(setting(node)) : NULL;
}

int cfgview_string(const muster_cfg *node, const char **out)
{
	const config_setting_t *s = setting(node);
	if (!s || config_setting_type(s) != CONFIG_TYPE_STRING)
		return -1;
	*out = config_setting_get_string(s);
	return 0;
}

int cfgview_int(const muster_cfg *node, long long *out)
{
	const config_setting_t *s = setting(node);
	if (!s || (config_setting_type(s) != CONFIG_TYPE_INT &&
	           config_setting_type(s) != CONFIG_TYPE_INT64))
		return -1;
	*out = config_setting_get_int64(s);
	return 0;
}

int cfgview_bool(const muster_cfg *node, int *out)
{
	const config_setting_t *s = setting(node);
	if (!s || config_setting_type(s) != CONFIG_TYPE_BOOL)
		return -1;
	*out = config_setting_get_bool(s);
	return 0;
}

int cfgview_float(const muster_cfg *node, double *out)
{
	const config_setting_t *s = setting(node);
	if (!s || config_setting_type(s) != CONFIG_TYPE_FLOAT)
		return -1;
	*out = config_setting_get_float(s);
	return 0;
}

const char *cfgview_file(const muster_cfg *node)
{
	return node ? config_setting_source_file(setting(node)) : NULL;
}

int cfgview_line(const muster_cfg *node)
{
	return node ? (int)config_setting_source_line(setting(node)) : 0;
}
