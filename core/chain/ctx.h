/* A context: the parsed settings and one opened instance per chain entry. */
#ifndef MUSTER_CTX_H
#define MUSTER_CTX_H

#include <pthread.h>

#include "host.h"
#include "config/loader.h"
#include "lib/log.h"
#include "config/settings.h"

struct entry {
	const struct entry_settings *set;
	const struct loaded_plugin *plugin; /* NULL when it failed to load */
	int load_code;
	char load_error[640];
	void *state;
	struct muster_plugin_ctx pc;
	int serialise;                      /* plugin is not thread-safe */
	pthread_mutex_t lock;
	/* Not loaded yet: its `detect` list found nothing when the context
	 * opened.  Read and cleared atomically (ctx_load_deferred()). */
	int deferred;
};

struct muster_ctx {
	struct logger logger;
	unsigned flags;                     /* MUSTER_CTX_*, kept to open it again */
	struct settings settings;
	struct pathlist search;             /* plugin directories, in order */
	struct entry *entries;
	size_t nentries;
	pthread_mutex_t local_lock;         /* guards local */
	pthread_mutex_t load_lock;          /* guards loading a deferred entry */
	struct muster_devices *local;       /* local_fill()'s devices, counted at first use */
};

/* Loads and opens an entry that was deferred (its `detect` list found
 * nothing when the context opened), once, whichever thread asks first;
 * what fails leaves the entry unloaded with its reason in load_error, as
 * a plugin that failed to load at open. */
void ctx_load_deferred(struct muster_ctx *ctx, struct entry *e);

/* A new context from the same file with the same options: a watch's way
 * to follow an edited config. */
int ctx_reopen(const struct muster_ctx *ctx, struct muster_ctx **out, muster_error *err);

#endif
