/*
 * Deliberately broken plugins, one per way a third-party .so can be wrong.
 * tests/abi/local.mk compiles this file once per variant, selected with
 * -DBROKEN_<VARIANT>, into a shared object named after the variant; each
 * must give the loader's documented error (tests/abi/test_loader.c):
 *
 *   abi_major2.so    built for ABI 2: exports muster_plugin_entry_v2 only
 *                    -> "built for plugin ABI 2, this libmuster speaks 1"
 *   abi_lying.so     exports muster_plugin_entry_v1, descriptor says 2
 *                    -> the same message
 *   short_struct.so  struct_size 16, shorter than ABI 1.0's descriptor
 *                    -> "descriptor is 16 bytes"
 *   no_entry.so      exports muster_plugin_entry (no ABI major in the name)
 *                    -> "does not export muster_plugin_entry_v1"
 *   unresolved.so    calls a function that exists nowhere; RTLD_NOW fails
 *                    -> "undefined symbol"
 *   null_resolve.so  descriptor without a resolve callback
 *                    -> "has no resolve callback"
 *
 * (wrong_name.so, extra_export.so and newer_minor.so are built from good.c.)
 */
#include <stddef.h>
#include <stdint.h>

#include <muster/plugin.h>

static int broken_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	(void)host;
	(void)pc;
	*state = NULL;
	return 0;
}

#if defined(BROKEN_UNRESOLVED)
/* Declared here, defined in no library: the link leaves it undefined
 * (-Wl,-z,undefs) and dlopen(RTLD_NOW) must refuse the object. */
extern int muster_test_function_that_exists_nowhere(void);
#endif

#if !defined(BROKEN_NULL_RESOLVE)
static muster_status broken_resolve(void *state, const muster_host *host, muster_call *call)
{
	(void)state;
#if defined(BROKEN_UNRESOLVED)
	if (muster_test_function_that_exists_nowhere() != 0)
		return MUSTER_STATUS_UNAVAIL;
#endif
	if (host->add_task(call, "worker", 0, "broken.invalid:1") != 0)
		return MUSTER_STATUS_UNAVAIL;
	return MUSTER_STATUS_SUCCESS;
}
#endif

static void broken_close(void *state)
{
	(void)state;
}

#if defined(BROKEN_ABI_MAJOR2)
/* What a plugin compiled against a future SDK with MUSTER_PLUGIN_ABI_MAJOR 2
 * looks like: the major is in the entry symbol's name. */
static const muster_plugin broken_plugin = {
	2, 0, (uint32_t)sizeof(muster_plugin), 0, "abi_major2", "2.0-test",
	broken_open, broken_resolve, broken_close, NULL,
};
MUSTER_PLUGIN_EXPORT const muster_plugin *muster_plugin_entry_v2(void);
MUSTER_PLUGIN_EXPORT const muster_plugin *muster_plugin_entry_v2(void)
{
	return &broken_plugin;
}

#elif defined(BROKEN_ABI_LYING)
/* The v1 symbol, but a descriptor that claims ABI 2. */
static const muster_plugin broken_plugin = {
	2, 0, (uint32_t)sizeof(muster_plugin), 0, "abi_lying", "2.0-test",
	broken_open, broken_resolve, broken_close, NULL,
};
MUSTER_PLUGIN_DEFINE(broken_plugin)

#elif defined(BROKEN_SHORT_STRUCT)
/* A descriptor that stops after the header fields. */
static const muster_plugin broken_plugin = {
	MUSTER_PLUGIN_ABI_MAJOR, MUSTER_PLUGIN_ABI_MINOR, 16, 0, "short_struct", "1.0-test",
	broken_open, broken_resolve, broken_close, NULL,
};
MUSTER_PLUGIN_DEFINE(broken_plugin)

#elif defined(BROKEN_NO_ENTRY)
/* An entry point under the wrong name (the ABI major left out of it): the
 * object exports a symbol, just not muster_plugin_entry_v1. */
static const muster_plugin broken_plugin = {
	MUSTER_PLUGIN_HEADER, 0, "no_entry", "1.0-test",
	broken_open, broken_resolve, broken_close, NULL,
};
MUSTER_PLUGIN_EXPORT const muster_plugin *muster_plugin_entry(void);
MUSTER_PLUGIN_EXPORT const muster_plugin *muster_plugin_entry(void)
{
	return &broken_plugin;
}

#elif defined(BROKEN_UNRESOLVED)
static const muster_plugin broken_plugin = {
	MUSTER_PLUGIN_HEADER, 0, "unresolved", "1.0-test",
	broken_open, broken_resolve, broken_close, NULL,
};
MUSTER_PLUGIN_DEFINE(broken_plugin)

#elif defined(BROKEN_NULL_RESOLVE)
static const muster_plugin broken_plugin = {
	MUSTER_PLUGIN_HEADER, 0, "null_resolve", "1.0-test",
	broken_open, NULL, broken_close,
};
MUSTER_PLUGIN_DEFINE(broken_plugin)

#else
#error "compile broken.c with one -DBROKEN_<VARIANT>"
#endif
