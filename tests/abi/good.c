/*
 * A minimal valid plugin for the loader tests.
 *
 * Built as good.so (the well-behaved reference), as wrong_name.so (the
 * same descriptor in a file whose name does not match: the loader must
 * refuse it), as extra_export.so (linked without the export filter and with
 * one more visible symbol: loadable, but the symbol checker must flag it)
 * as newer_minor.so (a descriptor from a future ABI minor with fields
 * appended: the loader must accept it and ignore what it does not know),
 * as old_minor.so (a descriptor of ABI 1.0, shorter than today's: it must
 * load and answer, tests/abi/test_services)
 * and as impostor.so (a "good" answering another address: test_loader swaps
 * it with good.so while muster loads, to see which one ran).
 *
 * It answers success with one task, `worker` 0 at GOOD_ADDRESS, and
 * puts its own instance's config `tag` (when given) in the environment
 * field, so a test can tell two instances apart.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include <stdlib.h>
#include <string.h>

#include <muster/plugin.h>

#ifndef GOOD_NAME
#define GOOD_NAME "good"
#endif
#ifndef GOOD_ADDRESS
#define GOOD_ADDRESS "good.invalid:1"
#endif

struct good_state {
	char *tag;
};

static int good_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	struct good_state *st = calloc(1, sizeof(*st));
	const muster_cfg *tag;
	const char *s;

	if (!st) {
		host->open_error(pc, NULL, "out of memory");
		return -1;
	}
	tag = host->cfg_get(host->cfg_root(pc), "tag");
	if (tag) {
		if (host->cfg_string(tag, &s) != 0) {
			host->open_error(pc, tag, "'tag' must be a string");
			free(st);
			return -1;
		}
		st->tag = strdup(s);
		if (!st->tag) {
			host->open_error(pc, NULL, "out of memory");
			free(st);
			return -1;
		}
	}
	*state = st;
	return 0;
}

static muster_status good_resolve(void *state, const muster_host *host, muster_call *call)
{
	struct good_state *st = state;

	if (host->add_task(call, "worker", 0, GOOD_ADDRESS) != 0)
		return MUSTER_STATUS_UNAVAIL;
	if (st->tag && host->set_environment(call, st->tag) != 0)
		return MUSTER_STATUS_UNAVAIL;
	return MUSTER_STATUS_SUCCESS;
}

static void good_close(void *state)
{
	struct good_state *st = state;

	if (st) {
		free(st->tag);
		free(st);
	}
}

#ifdef GOOD_NEWER_MINOR
/* What a plugin built against a later SDK looks like to this core: a higher
 * minor and a longer descriptor whose extra fields this core never reads. */
static const struct {
	muster_plugin base;
	void (*future_callback)(void *state);
	const char *future_string;
} good_plugin = {
	{ MUSTER_PLUGIN_ABI_MAJOR, MUSTER_PLUGIN_ABI_MINOR + 7,
	  (uint32_t)(sizeof(muster_plugin) + 2 * sizeof(void *)), MUSTER_PLUGIN_THREADSAFE,
	  GOOD_NAME, "1.0-test", good_open, good_resolve, good_close, NULL },
	NULL,
	"appended field",
};
MUSTER_PLUGIN_DEFINE(good_plugin.base)
#elif defined(GOOD_OLD_MINOR)
/* What a plugin built against ABI 1.0 looks like to this core: minor 0 and
 * a descriptor that ends before watch (1.3). */
static const muster_plugin good_plugin = {
	MUSTER_PLUGIN_ABI_MAJOR, 0, (uint32_t)offsetof(muster_plugin, watch),
	MUSTER_PLUGIN_THREADSAFE, GOOD_NAME, "1.0-test", good_open, good_resolve, good_close,
	NULL,
};
MUSTER_PLUGIN_DEFINE(good_plugin)
#else
static const muster_plugin good_plugin = {
	MUSTER_PLUGIN_HEADER,
	MUSTER_PLUGIN_THREADSAFE,
	GOOD_NAME,
	"1.0-test",
	good_open,
	good_resolve,
	good_close,
};
MUSTER_PLUGIN_DEFINE(good_plugin)
#endif

#ifdef GOOD_EXTRA_EXPORT
/* A symbol a plugin must not export (a plugin's own helpers must be hidden);
 * tests/abi/exports.sh expects check-exports.sh to name it. */
MUSTER_PLUGIN_EXPORT int extra_symbol_for_test;
int extra_symbol_for_test = 42;
#endif
