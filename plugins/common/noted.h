/* A reader of the environment (lib/env.h) that notes every variable it
 * looks up, set or not, with note_input() (plugin ABI 1.7), so that
 * `muster resolve --explain` lists what decided an answer.  A backend
 * reads its launcher's variables through it and nothing else. */
#ifndef MUSTER_PLUGIN_COMMON_NOTED_H
#define MUSTER_PLUGIN_COMMON_NOTED_H

#include <string.h>

#include <muster/plugin.h>

#include "lib/env.h"

struct noted {
	const muster_host *host;
	muster_call *call;
	struct env_reader env;
};

static inline void noted_record(void *data, const char *name, const char *value)
{
	const struct noted *n = (const struct noted *)data;

	muster_plugin_note_input(n->host, n->call, name, value);
}

/* The descriptor's flags of a backend that reads its launcher's
 * environment and files: they are fixed for the job's life (a watch has
 * nothing to poll), and the entry detects its launcher's job
 * (MUSTER_NO_DETECT turns it off). */
#define NOTED_PLUGIN_FLAGS                                                                  \
	(MUSTER_PLUGIN_THREADSAFE | MUSTER_PLUGIN_CONFIG_ONLY | MUSTER_PLUGIN_DETECTS)

/* `n` ready: read through &n->env.  It points to itself, so it stays
 * where it was set up. */
static inline void noted_init(struct noted *n, const muster_host *host, muster_call *call)
{
	memset(n, 0, sizeof(*n));
	n->host = host;
	n->call = call;
	n->env.record = noted_record;
	n->env.record_data = n;
}

#endif
