/* Opening a context: settings, plugin search path, loading and opening
 * each chain entry.  Also the public resolve entry point. */
#include <config.h>

#include "ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/cfgview.h"
#include "chain.h"
#include "explain.h"
#include "gate.h"
#include "lib/env.h"
#include "lib/error.h"
#include "config/unknown.h"

static void apply_options(struct muster_ctx *ctx, const muster_options *o, unsigned *flags)
{
	ctx->logger.level = MUSTER_LOG_WARNING;
	*flags = 0;
	if (!o)
		return;
	/* Read only the fields the caller's struct has. */
	if (o->size >= offsetof(muster_options, flags) + sizeof(o->flags))
		*flags = o->flags;
	if (o->size >= offsetof(muster_options, log_level) + sizeof(o->log_level))
		ctx->logger.level = o->log_level;
	if (o->size >= offsetof(muster_options, log_data) + sizeof(o->log_data)) {
		ctx->logger.fn = o->log;
		ctx->logger.data = o->log_data;
	}
}

/* The config's plugin_path, then $MUSTER_PLUGIN_PATH, then the installed
 * directory. */
static int build_search_path(struct muster_ctx *ctx)
{
	const struct pathlist *conf = &ctx->settings.plugin_path;
	for (size_t i = 0; i < conf->n; i++)
		if (pathlist_add(&ctx->search, conf->dirs[i], strlen(conf->dirs[i])) < 0)
			return -1;
	if (pathlist_add_split(&ctx->search, env_get("MUSTER_PLUGIN_PATH")) < 0)
		return -1;
	return pathlist_add(&ctx->search, MUSTER_PLUGINDIR, strlen(MUSTER_PLUGINDIR));
}

/* No built-in and no NAME.so in the search path: a name nobody knows,
 * rather than a plugin that is there and broken. */
static int plugin_missing(const struct muster_ctx *ctx, const char *name)
{
	if (!plugin_name_valid(name))
		return 0;
	for (size_t i = 0; loader_builtin_name(i); i++)
		if (strcmp(name, loader_builtin_name(i)) == 0)
			return 0;
	for (size_t i = 0; i < ctx->search.n; i++) {
		char path[4096];
		if ((size_t)snprintf(path, sizeof(path), "%s/%s.so", ctx->search.dirs[i], name) <
		        sizeof(path) &&
		    access(path, F_OK) == 0)
			return 0;
	}
	return 1;
}

static void unknown_plugin(struct muster_ctx *ctx, const struct entry_settings *set)
{
	char near[128] = "";
	if (ctx->settings.strict)
		suggest_plugin(set->plugin, ctx->search.dirs, ctx->search.n, near, sizeof(near));
	unknown_name(&ctx->settings.unknown, "plugin", set->plugin, set->file, set->line, near);
}

/* The keys the plugin's open() never read: unknown. */
static int open_plugin(struct muster_ctx *ctx, struct entry *e, muster_error *err)
{
	const struct entry_settings *set = e->set;
	struct cfg_reads reads;
	cfgview_begin_open(set->config, &reads);
	int rc = e->plugin->desc->open(&host_services, &e->pc, &e->state);
	cfgview_end_open(set->config);
	if (rc != 0) {
		cfgview_reads_free(&reads);
		e->plugin = NULL; /* never closed: it did not open */
		if (!e->pc.open_error[0])
			snprintf(e->pc.open_error, sizeof(e->pc.open_error), "%s:%d: %scannot open",
			         set->file, set->line, e->pc.prefix);
		return error_set(err, MUSTER_ECONFIG, "%s", e->pc.open_error);
	}
	cfgview_check_unread(set->config, &reads, &ctx->settings.unknown);
	cfgview_reads_free(&reads);
	return 0;
}

static int load_entry(struct muster_ctx *ctx, struct entry *e, int strict, muster_error *err)
{
	const struct entry_settings *set = e->set;
	e->load_code = loader_load(set->plugin, ctx->search.dirs, ctx->search.n, &e->plugin,
	                           e->load_error, sizeof(e->load_error));
	if (e->load_code == MUSTER_ENOMEM)
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	if (e->load_code < 0 && plugin_missing(ctx, set->plugin)) {
		unknown_plugin(ctx, set);
		return 0;
	}
	if (e->load_code < 0) {
		if (strict)
			return error_set(err, e->load_code, "%s:%d: %s%s", set->file, set->line,
			                 e->pc.prefix, e->load_error);
		/* Logged once, here; every resolve then answers unavail with it. */
		log_msg(&ctx->logger, MUSTER_LOG_WARNING,
		        "%s:%d: %s%s (the entry will answer unavail)",
		        set->file, set->line, e->pc.prefix, e->load_error);
		return 0;
	}

	const muster_plugin *d = e->plugin->desc;
	e->serialise = !(d->flags & MUSTER_PLUGIN_THREADSAFE);
	if (e->serialise && pthread_mutex_init(&e->lock, NULL) != 0)
		return error_set(err, MUSTER_ENOMEM, "cannot create a lock");
	if (d->open)
		return open_plugin(ctx, e, err);
	cfgview_check_unread(set->config, NULL, &ctx->settings.unknown);
	return 0;
}

/* An entry whose `detect` list finds nothing now is loaded only when it
 * does (ctx_load_deferred()); strict (muster check) loads every entry, so
 * that a typo anywhere in the chain is found. */
static int open_entry(struct muster_ctx *ctx, struct entry *e, int strict, muster_error *err)
{
	const struct entry_settings *set = e->set;
	char why[512];
	snprintf(e->pc.prefix, sizeof(e->pc.prefix), "%s(%s): ", set->plugin, set->name);
	e->pc.logger = &ctx->logger;
	e->pc.config = set->config;
	if (set->detect && !strict && !gate_open(set->detect, NULL, why, sizeof(why))) {
		e->deferred = 1;
		snprintf(e->load_error, sizeof(e->load_error), "not loaded: %s", why);
		return 0;
	}
	return load_entry(ctx, e, strict, err);
}

void ctx_load_deferred(struct muster_ctx *ctx, struct entry *e)
{
	if (!__atomic_load_n(&e->deferred, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&ctx->load_lock);
	if (e->deferred) {
		muster_error err;
		e->load_error[0] = '\0';
		if (load_entry(ctx, e, 0, &err) < 0) {
			e->plugin = NULL;
			snprintf(e->load_error, sizeof(e->load_error), "%s", err.message);
		}
		__atomic_store_n(&e->deferred, 0, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ctx->load_lock);
}

MUSTER_API void muster_ctx_free(muster_ctx *ctx)
{
	if (!ctx)
		return;
	for (size_t i = 0; i < ctx->nentries; i++) {
		struct entry *e = &ctx->entries[i];
		if (e->plugin && e->plugin->desc->close)
			e->plugin->desc->close(e->state);
		if (e->serialise)
			pthread_mutex_destroy(&e->lock);
	}
	free(ctx->entries);
	muster_devices_free(ctx->local);
	pthread_mutex_destroy(&ctx->local_lock);
	pthread_mutex_destroy(&ctx->load_lock);
	pathlist_clear(&ctx->search);
	settings_release(&ctx->settings);
	free(ctx);
}

MUSTER_API int muster_ctx_open(muster_ctx **out, const char *config_path,
                               const muster_options *options, muster_error *err)
{
	unsigned flags;
	int rc;
	if (!out)
		return error_set(err, MUSTER_EINVAL, "muster_ctx_open: NULL argument");
	*out = NULL;
	struct muster_ctx *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	pthread_mutex_init(&ctx->local_lock, NULL);
	pthread_mutex_init(&ctx->load_lock, NULL);
	apply_options(ctx, options, &flags);
	ctx->flags = flags;

	const char *path = settings_default_path(config_path);
	if ((rc = settings_load(&ctx->settings, path, !!(flags & MUSTER_CTX_STRICT), &ctx->logger,
	                        err)) < 0)
		goto fail;
	if (build_search_path(ctx) < 0 ||
	    !(ctx->entries = calloc(ctx->settings.nentries, sizeof(*ctx->entries)))) {
		rc = error_set(err, MUSTER_ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < ctx->settings.nentries; i++) {
		struct entry *e = &ctx->entries[i];
		e->set = &ctx->settings.entries[i];
		ctx->nentries++;
		if ((rc = open_entry(ctx, e, ctx->settings.strict, err)) < 0)
			goto fail;
	}
	if ((rc = unknowns_finish(&ctx->settings.unknown, err)) < 0)
		goto fail;
	error_clear(err);
	*out = ctx;
	return 0;
fail:
	muster_ctx_free(ctx);
	return rc;
}

int ctx_reopen(const struct muster_ctx *ctx, struct muster_ctx **out, muster_error *err)
{
	muster_options o = MUSTER_OPTIONS_INIT;
	o.flags = ctx->flags;
	o.log_level = ctx->logger.level;
	o.log = ctx->logger.fn;
	o.log_data = ctx->logger.data;
	return muster_ctx_open(out, ctx->settings.path, &o, err);
}

MUSTER_API const char *muster_ctx_config_path(const muster_ctx *ctx)
{
	return ctx ? ctx->settings.path : NULL;
}

MUSTER_API size_t muster_ctx_entry_count(const muster_ctx *ctx)
{
	return ctx ? ctx->nentries : 0;
}

MUSTER_API int muster_ctx_entry_info(const muster_ctx *ctx, size_t i, muster_entry_info *out)
{
	if (!ctx || !out || i >= ctx->nentries)
		return MUSTER_EINVAL;
	struct entry *e = &ctx->entries[i];
	/* Whoever asks about an entry wants to know whether it loads. */
	ctx_load_deferred((struct muster_ctx *)ctx, e);
	memset(out, 0, sizeof(*out));
	out->plugin = e->set->plugin;
	out->instance = e->set->name;
	out->config_file = e->set->file;
	out->config_line = e->set->line;
	if (!e->plugin) {
		out->state = MUSTER_PLUGIN_FAILED;
		out->reason = e->load_error;
		return 0;
	}
	const muster_plugin *d = e->plugin->desc;
	out->version = d->version;
	out->abi_major = d->abi_major;
	out->abi_minor = d->abi_minor;
	out->file = e->plugin->file;
	out->state = e->plugin->file ? MUSTER_PLUGIN_LOADED : MUSTER_PLUGIN_BUILTIN;
	return 0;
}

MUSTER_API int muster_resolve(muster_result **out, muster_ctx *ctx, muster_error *err)
{
	if (!out || !ctx)
		return error_set(err, MUSTER_EINVAL, "muster_resolve: NULL argument");
	*out = NULL;
	return chain_resolve(ctx, out, err);
}

MUSTER_API int muster_resolve_explain(muster_result **out, muster_explain **explain,
                                      muster_ctx *ctx, muster_error *err)
{
	if (!out || !explain || !ctx)
		return error_set(err, MUSTER_EINVAL, "muster_resolve_explain: NULL argument");
	*out = NULL;
	if (!(*explain = calloc(1, sizeof(**explain))))
		return error_set(err, MUSTER_ENOMEM, "out of memory");
	return chain_resolve_explain(ctx, out, err, *explain);
}
