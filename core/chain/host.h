/* The services the core offers plugins, and the two handles plugins hold:
 * one per chain entry, one per call of resolve(). */
#ifndef MUSTER_HOST_H
#define MUSTER_HOST_H

#include <libconfig.h>

#include <muster/plugin.h>

#include "model/builder.h"
#include "lib/log.h"

struct explain_notes;

struct muster_plugin_ctx {
	char prefix[160];              /* "plugin(instance): " */
	const struct logger *logger;
	config_setting_t *config;      /* the entry's config group */
	char open_error[1024];         /* set by host->open_error */
};

struct muster_call {
	struct muster_plugin_ctx *pc;
	struct builder builder;
	int build_failed;              /* a builder service refused something */
	char reason[1024];             /* set by host->fail or the builder */
	long long deadline_ms;         /* on clock_now_ms()'s clock */
	long budget_ms;
	unsigned long built_calls;     /* builder services called, for the clock check */
	/* A watch's call (host->watch_call_begin): no deadline, each request
	 * gets budget_ms; fail() also goes to failed(failed_data, reason). */
	int watching;
	void (*failed)(void *data, const char *reason);
	void *failed_data;
	struct explain_notes *notes;   /* note_input()'s record; NULL: nobody asked */
};

extern const muster_host host_services;

/* watch_entries.c: the services a plugin's watch() calls. */
void host_watch_armed(muster_watcher *w);
void host_watch_changed(muster_watcher *w);
int host_watch_stop_fd(const muster_watcher *w);
void host_watch_event(muster_watcher *w, int event);

void call_init(struct muster_call *call, struct muster_plugin_ctx *pc, long budget_ms);

#endif
