/* What the plugin SDK's option tables (muster_popt_read) leave to each
 * plugin, shared: keys that one mode of a plugin does not take. */
#ifndef MUSTER_PLUGIN_COMMON_POPTS_H
#define MUSTER_PLUGIN_COMMON_POPTS_H

#include <muster/plugin.h>

/* The first of `keys` (NULL-terminated) that o->group sets: open_error()
 * at it, "KEY does not apply to WHY", and -1; 0 when none is set. */
int popt_refuse(const muster_popts *o, const char *const *keys, const char *why);

#endif
