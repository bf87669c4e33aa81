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
};

struct muster_ctx {
	struct logger logger;
	unsigned flags;                     /* MUSTER_CTX_*, kept to open it again */
	struct settings settings;
	struct pathlist search;             /* plugin directories, in order */
	struct entry *entries;
	size_t nentries;
	pthread_mutex_t local_lock;         /* guards local */
	struct muster_devices *local;       /* local_fill()'s devices, counted at first use */
};

/* A new context from the same file with the same options: a watch's way
 * to follow an edited config. */
int ctx_reopen(const struct muster_ctx *ctx, struct muster_ctx **out, muster_error *err);

#endif
