/* An entry's `detect` list: with nothing of it there the entry answers
 * notfound without its plugin being loaded; it is loaded when the
 * variable appears, by whichever thread asks first; strict loads every
 * entry; MUSTER_NO_DETECT turns detection off; an explanation asks the
 * detectors after the answering entry too. */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define STATIC(name, host) \
	"{ plugin = \"static\"; name = \"" name "\"; config = { jobs = { w = [\"" host ":1\"]; }; }; }"
#define TF_CONFIG_TEXT "{\"cluster\":{\"tf\":[\"tf0:1\"]},\"task\":{\"type\":\"tf\",\"index\":0}}"

/* Whether this process has mapped a shared object whose path has `name`. */
static int mapped(const char *name)
{
	char line[4096];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, name) != NULL;
	fclose(f);
	return found;
}

static const char *source_of_resolve(muster_ctx *ctx)
{
	static char source[64];
	muster_result *r = resolve_ok(ctx);

	snprintf(source, sizeof(source), "%s", muster_result_source(r));
	muster_result_free(r);
	return source;
}

static const char *const gated_tf_config =
	"chain = ( { plugin = \"tf_config\"; detect = [ \"TF_CONFIG\" ]; on_unavail = \"return\"; },\n"
	STATIC("fallback", "here") " );";

/* First of all: nothing else in this process may have loaded tf_config. */
static void closed_gate_loads_nothing(void **state)
{
	muster_ctx *ctx;
	muster_explain *x = NULL;
	muster_explain_entry e = MUSTER_EXPLAIN_ENTRY_INIT;
	muster_result *r = NULL;
	const char *name, *value;

	(void)state;
	unsetenv("TF_CONFIG");
	ctx = open_text(gated_tf_config, NULL);
	assert_string_equal(source_of_resolve(ctx), "fallback");
	assert_false(mapped("tf_config.so"));
	assert_int_equal(muster_resolve_explain(&r, &x, ctx, NULL), 0);
	assert_int_equal(muster_explain_entry_at(x, 0, &e), 0);
	assert_int_equal(e.code, MUSTER_ENOTFOUND);
	assert_string_equal(e.reason, "TF_CONFIG is not set");
	assert_int_equal(muster_explain_input_at(x, 0, 0, &name, &value), 0);
	assert_string_equal(name, "TF_CONFIG");
	assert_null(value);
	assert_false(mapped("tf_config.so"));
	muster_explain_free(x);
	muster_result_free(r);

	/* The variable appears after the context opened: loaded then. */
	setenv("TF_CONFIG", TF_CONFIG_TEXT, 1);
	assert_string_equal(source_of_resolve(ctx), "tf_config");
	assert_true(mapped("tf_config.so"));
	unsetenv("TF_CONFIG");
	assert_string_equal(source_of_resolve(ctx), "fallback");
	muster_ctx_free(ctx);
}

/* What a detect list may hold, each error at its line. */
static void bad_lists_are_refused(void **state)
{
	static const struct {
		const char *value, *message;
	} cases[] = {
		{ "3", "'detect' must be a list of variable names" },
		{ "[]", "'detect' must not be empty" },
		{ "[ \"1ABC\" ]", "'detect' item \"1ABC\" is neither a variable name" },
		{ "[ \"A-B\" ]", "'detect' item \"A-B\" is neither" },
		{ "[ \"*\" ]", "'detect' item \"*\" is neither" },
		{ "[ \"/\" ]", "'detect' item \"/\" is neither" },
		{ "( \"A\", 2 )", "'detect' must be a list of strings" },
	};
	char text[512];
	muster_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "chain = (\n { plugin = \"static\";\n detect = %s; } );",
		         cases[i].value);
		assert_int_equal(open_text_fails(text, &err), MUSTER_ECONFIG);
		if (!strstr(err.message, cases[i].message) || !strstr(err.message, "muster.conf:3"))
			fail_msg("%s: '%s' lacks '%s'", cases[i].value, err.message, cases[i].message);
	}
}

/* Names, prefixes and files, and the reasons that name them. */
static void names_prefixes_and_files(void **state)
{
	muster_ctx *ctx;
	muster_error err;
	muster_result *r = NULL;

	(void)state;
	unsetenv("MUSTER_GATE_A");
	unsetenv("MUSTER_GATE_B");
	unsetenv("MUSTER_GATE_PREFIX_X");
	ctx = open_text("chain = (\n"
	                " { plugin = \"static\"; name = \"two\"; detect = [ \"MUSTER_GATE_A\", \"MUSTER_GATE_B\" ];"
	                "   config = { jobs = { w = [\"two:1\"]; }; }; },\n"
	                " { plugin = \"static\"; name = \"three\"; detect = [ \"MUSTER_GATE_A\", \"MUSTER_GATE_PREFIX_*\","
	                "   \"/nonexistent/muster\" ]; config = { jobs = { w = [\"three:1\"]; }; }; },\n"
	                " { plugin = \"static\"; name = \"one\"; detect = \"/nonexistent/muster\";"
	                "   config = { jobs = { w = [\"one:1\"]; }; }; } );", NULL);
	assert_int_equal(muster_resolve(&r, ctx, &err), MUSTER_ENOTFOUND);
	assert_non_null(strstr(err.message, "static(two): notfound: neither MUSTER_GATE_A nor MUSTER_GATE_B is set"));
	assert_non_null(strstr(err.message, "static(three): notfound: none of MUSTER_GATE_A, "
	                                    "MUSTER_GATE_PREFIX_* and /nonexistent/muster is set"));
	assert_non_null(strstr(err.message, "static(one): notfound: /nonexistent/muster does not exist"));
	setenv("MUSTER_GATE_PREFIX_X", "", 1); /* set, even empty */
	assert_string_equal(source_of_resolve(ctx), "three");
	unsetenv("MUSTER_GATE_PREFIX_X");
	setenv("MUSTER_GATE_B", "1", 1);
	assert_string_equal(source_of_resolve(ctx), "two");
	unsetenv("MUSTER_GATE_B");
	muster_ctx_free(ctx);

	ctx = open_text("chain = ( { plugin = \"static\"; detect = [ \"/dev/null\" ];"
	                " config = { jobs = { w = [\"file:1\"]; }; }; } );", NULL);
	assert_string_equal(source_of_resolve(ctx), "static");
	muster_ctx_free(ctx);
}

/* MUSTER_NO_DETECT: an entry with a detect list stands aside, unloaded. */
static void no_detect(void **state)
{
	muster_ctx *ctx;

	(void)state;
	setenv("MUSTER_GATE_A", "1", 1);
	ctx = open_text("chain = ( " "{ plugin = \"static\"; name = \"gated\"; detect = \"MUSTER_GATE_A\";"
	                " config = { jobs = { w = [\"g:1\"]; }; }; }, " STATIC("plain", "p") " );",
	                NULL);
	assert_string_equal(source_of_resolve(ctx), "gated");
	setenv("MUSTER_NO_DETECT", "1", 1);
	assert_string_equal(source_of_resolve(ctx), "plain");
	unsetenv("MUSTER_NO_DETECT");
	unsetenv("MUSTER_GATE_A");
	muster_ctx_free(ctx);
}

/* An explanation asks the detectors after the answering entry, and marks
 * them; an entry that is no detector is not asked. */
static void explain_asks_later_detectors(void **state)
{
	muster_ctx *ctx;
	muster_explain *x = NULL;
	muster_explain_entry e = MUSTER_EXPLAIN_ENTRY_INIT;
	muster_result *r = NULL;

	(void)state;
	setenv("MUSTER_GATE_A", "1", 1);
	unsetenv("MUSTER_GATE_B");
	ctx = open_text("chain = ( "
	                "{ plugin = \"static\"; name = \"inner\"; detect = \"MUSTER_GATE_A\";"
	                "  config = { jobs = { w = [\"i:1\"]; }; }; }, "
	                STATIC("plain", "p") ", "
	                "{ plugin = \"static\"; name = \"outer\"; detect = \"MUSTER_GATE_A\";"
	                "  config = { jobs = { w = [\"o:1\"]; }; }; }, "
	                "{ plugin = \"static\"; name = \"elsewhere\"; detect = \"MUSTER_GATE_B\";"
	                "  config = { jobs = { w = [\"e:1\"]; }; }; } );", NULL);
	assert_int_equal(muster_resolve_explain(&r, &x, ctx, NULL), 0);
	assert_string_equal(muster_result_source(r), "inner");
	assert_int_equal(muster_explain_entry_count(x), 3);
	assert_int_equal(muster_explain_entry_at(x, 0, &e), 0);
	assert_string_equal(e.instance, "inner");
	assert_true(e.used && !e.after);
	assert_int_equal(muster_explain_entry_at(x, 1, &e), 0);
	assert_string_equal(e.instance, "outer");
	assert_int_equal(e.code, MUSTER_OK);
	assert_true(!e.used && e.after);
	assert_int_equal(muster_explain_entry_at(x, 2, &e), 0);
	assert_string_equal(e.instance, "elsewhere");
	assert_int_equal(e.code, MUSTER_ENOTFOUND);
	assert_true(!e.used && e.after);
	/* A caller built before `after` existed gets the rest. */
	e.size = offsetof(muster_explain_entry, after);
	e.after = 7;
	assert_int_equal(muster_explain_entry_at(x, 1, &e), 0);
	assert_int_equal(e.after, 7);
	muster_explain_free(x);
	muster_result_free(r);
	unsetenv("MUSTER_GATE_A");
	muster_ctx_free(ctx);
}

struct racer {
	muster_ctx *ctx;
	int ok;
};

static void *race(void *arg)
{
	struct racer *rc = arg;
	muster_result *r = NULL;

	rc->ok = muster_resolve(&r, rc->ctx, NULL) == 0 &&
	         strcmp(muster_result_source(r), "tf_config") == 0;
	muster_result_free(r);
	return NULL;
}

/* Threads that find the variable at once load the entry once. */
static void deferred_load_races(void **state)
{
	struct racer racers[8];
	pthread_t threads[8];
	muster_ctx *ctx;

	(void)state;
	unsetenv("TF_CONFIG");
	ctx = open_text(gated_tf_config, NULL);
	setenv("TF_CONFIG", TF_CONFIG_TEXT, 1);
	for (int i = 0; i < 8; i++) {
		racers[i] = (struct racer){ ctx, 0 };
		assert_int_equal(pthread_create(&threads[i], NULL, race, &racers[i]), 0);
	}
	for (int i = 0; i < 8; i++) {
		pthread_join(threads[i], NULL);
		assert_true(racers[i].ok);
	}
	unsetenv("TF_CONFIG");
	muster_ctx_free(ctx);
}

/* muster check (strict) loads every entry; entry_info loads a deferred one. */
static void strict_and_info_load(void **state)
{
	muster_ctx *ctx = NULL;
	muster_options o = MUSTER_OPTIONS_INIT;
	muster_entry_info info;
	muster_error err;

	(void)state;
	unsetenv("MUSTER_GATE_A");
	o.flags = MUSTER_CTX_STRICT;
	assert_int_equal(muster_ctx_open(&ctx, write_config(
		"chain = ( { plugin = \"no_such_plugin\"; detect = \"MUSTER_GATE_A\"; },\n"
		STATIC("s", "s") " );"), &o, &err), MUSTER_ECONFIG);
	assert_non_null(strstr(err.message, "unknown plugin 'no_such_plugin'"));
	ctx = open_text(gated_tf_config, NULL);
	assert_int_equal(muster_ctx_entry_info(ctx, 0, &info), 0);
	assert_int_equal(info.state, MUSTER_PLUGIN_LOADED);
	assert_non_null(info.version);
	muster_ctx_free(ctx);
}

static int teardown(void **state)
{
	(void)state;
	testutil_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(closed_gate_loads_nothing, teardown),
		cmocka_unit_test_teardown(bad_lists_are_refused, teardown),
		cmocka_unit_test_teardown(names_prefixes_and_files, teardown),
		cmocka_unit_test_teardown(no_detect, teardown),
		cmocka_unit_test_teardown(explain_asks_later_detectors, teardown),
		cmocka_unit_test_teardown(deferred_load_races, teardown),
		cmocka_unit_test_teardown(strict_and_info_load, teardown),
	};
	return run_tap_tests(tests, NULL, NULL);
}
