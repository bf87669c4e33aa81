/* Reading muster.conf (and its drop-ins) into the chain's settings.  Every
 * error names file:line; unknown keys are warned about, fatal only under
 * strict. */
#ifndef MUSTER_SETTINGS_H
#define MUSTER_SETTINGS_H

#include <libconfig.h>

#include <muster/muster.h>
#include <muster/plugin.h>

#include "cfgsource.h"
#include "lib/log.h"
#include "pathlist.h"
#include "unknown.h"

enum action { ACTION_RETURN, ACTION_CONTINUE, ACTION_MERGE };

#define STATUS_COUNT 4 /* indexed by muster_status */
#define DEFAULT_TIMEOUT_MS 5000
#define DEFAULT_WATCH_INTERVAL_MS 10000

struct entry_settings {
	const char *plugin;         /* [a-z0-9_]+ */
	const char *name;           /* instance name, unique in the chain */
	config_setting_t *config;   /* the plugin's own group (possibly empty) */
	int actions[STATUS_COUNT];  /* enum action per muster_status */
	long timeout_ms;
	long watch_interval_ms;     /* how often a watch polls a plugin that cannot watch */
	/* `detect`: what announces the entry's environment (a variable NAME,
	 * a prefix NAME*, or a file /PATH), NULL-terminated; NULL: the entry
	 * has no such list and always runs. */
	const char **detect;
	const char *file;
	int line;
};

struct settings {
	config_t *files;            /* the main file, then each drop-in */
	struct cfgsource *sources;  /* where each file's settings were written */
	size_t nfiles;
	char *path;
	int strict;                 /* the file's, or the caller's MUSTER_CTX_STRICT */
	int local_accelerators;     /* the own task's unknown accelerators are local_fill()'s */
	long master_port;           /* the launch's MASTER_PORT; 0: not set */
	int no_interface;           /* choose_interface = false */
	struct unknowns unknown;    /* names nobody knows, in all the files */
	struct pathlist plugin_path; /* directories from the config, in order */
	struct entry_settings *entries;
	size_t nentries;
};

/* Where the context's config comes from: the argument, $MUSTER_CONF, or the
 * installed default. */
const char *settings_default_path(const char *explicit_path);

/* `strict`: as if the file said strict = true.  Unknown keys are left in
 * s->unknown for the caller's unknowns_finish(). */
int settings_load(struct settings *s, const char *path, int strict, const struct logger *lg,
                  muster_error *err);
void settings_release(struct settings *s);

/* "file:line: " of a setting, for messages. */
void settings_where(const config_setting_t *node, char *buf, size_t len);

const char *status_name(int status);

#endif
