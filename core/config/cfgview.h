/* The plugin's read-only view of its own config group.  A muster_cfg is a
 * libconfig setting behind an opaque type: no libconfig type crosses the
 * plugin ABI, and every node still knows its file:line. */
#ifndef MUSTER_CFGVIEW_H
#define MUSTER_CFGVIEW_H

#include <libconfig.h>

#include <muster/plugin.h>

#include "unknown.h"

/* A setting as the plugin sees it, and back. */
const muster_cfg *cfgview_node(const config_setting_t *s);
const config_setting_t *cfgview_setting(const muster_cfg *node);

/* While a plugin's open() runs, the getters remember which keys it read
 * and which it asked for; afterwards the keys it never read are unknown
 * (see unknown_name()), the keys it asked for in the same group are what a
 * typo is compared with.
 *
 * Both live in libconfig's hook: one untyped pointer per setting, which
 * nothing else in muster uses.  The view keeps only a struct cfg_hook
 * there, and only through its accessors (cfgview.c):
 *  - on a config's root, while open() runs: OPENING, with the cfg_reads
 *    that records what it asks for (see cfgview_begin_open());
 *  - on a setting open() read: READ.
 * A setting without a hook is unread. */
struct cfg_reads;
struct cfg_hook {
	enum { CFG_HOOK_OPENING = 1, CFG_HOOK_READ } kind;
	struct cfg_reads *reads; /* OPENING: the open in progress */
};

struct cfg_asked {
	const config_setting_t *group;
	char *name;
};
/* One open()'s reads: the keys it asked for, and the hook on its
 * config's root while it runs. */
struct cfg_reads {
	struct cfg_asked *asked;
	size_t n, cap;
	struct cfg_hook opening;
};
/* Between these two, the config of `group` records what is read; `reads`
 * lives until cfgview_reads_free(). */
void cfgview_begin_open(config_setting_t *group, struct cfg_reads *reads);
void cfgview_end_open(config_setting_t *group);
/* Each member of `group` (and of its groups, deeply) that no open() read
 * goes to `unknown`, with the nearest key asked for in its group (from
 * `reads`; NULL: no suggestion). */
void cfgview_check_unread(const config_setting_t *group, const struct cfg_reads *reads,
                          struct unknowns *unknown);
void cfgview_reads_free(struct cfg_reads *reads);

const muster_cfg *cfgview_get(const muster_cfg *group, const char *name);
int cfgview_type(const muster_cfg *node);
size_t cfgview_count(const muster_cfg *node);
const muster_cfg *cfgview_at(const muster_cfg *node, size_t i);
const char *cfgview_name(const muster_cfg *node);
int cfgview_string(const muster_cfg *node, const char **out);
int cfgview_int(const muster_cfg *node, long long *out);
int cfgview_bool(const muster_cfg *node, int *out);
int cfgview_float(const muster_cfg *node, double *out);
const char *cfgview_file(const muster_cfg *node);
int cfgview_line(const muster_cfg *node);

#endif
