/* muster.conf: every error names file:line, unknown keys are warned about
 * (an error under strict, with a suggestion), drop-ins override, and the path comes from the argument, $MUSTER_CONF or
 * the default. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define GOOD_ENTRY "{ plugin = \"static\"; config = { jobs = { w = [\"w:1\"]; }; }; }"

static void expect_error(const char *text, int code, const char *needle)
{
	muster_error err;
	assert_int_equal(open_text_fails(text, &err), code);
	if (!strstr(err.message, needle))
		fail_msg("'%s' lacks '%s'", err.message, needle);
}

static void errors_name_file_and_line(void **state)
{
	expect_error("chain = (\n { plugin = = \"static\"; }\n);", MUSTER_ECONFIG, "muster.conf:2: syntax error");
	expect_error("strict = true;\n", MUSTER_ECONFIG, "muster.conf: no 'chain' setting");
	expect_error("chain = ();\n", MUSTER_ECONFIG, "muster.conf:1: 'chain' is empty");
	expect_error("chain = { a = 1; };\n", MUSTER_ECONFIG, "muster.conf:1: 'chain' must be a list");
	expect_error("chain = ( \"static\" );\n", MUSTER_ECONFIG, "muster.conf:1: each chain entry must be a group");
	expect_error("chain = ( { name = \"x\"; } );\n", MUSTER_ECONFIG, "muster.conf:1: chain entry has no 'plugin'");
	expect_error("chain = (\n { plugin = 7; } );\n", MUSTER_ECONFIG, "muster.conf:2: 'plugin' must be a string");
	expect_error("chain = (\n { plugin = \"../etc\"; } );\n", MUSTER_ECONFIG, "muster.conf:2: invalid plugin name '../etc': use [a-z0-9_]+");
	expect_error("chain = (\n { plugin = \"Static\"; } );\n", MUSTER_ECONFIG, "invalid plugin name 'Static'");
	expect_error("chain = (\n { plugin = \"a/b\"; } );\n", MUSTER_ECONFIG, "invalid plugin name 'a/b'");
	expect_error("chain = (\n { plugin = \"static\";\n on_notfound = \"stop\"; } );\n", MUSTER_ECONFIG,
	             "muster.conf:3: 'on_notfound' must be \"return\", \"continue\" or \"merge\", not \"stop\"");
	expect_error("chain = ( { plugin = \"static\";\n timeout_ms = \"5\"; } );\n", MUSTER_ECONFIG, "muster.conf:2: 'timeout_ms' must be an integer");
	expect_error("chain = ( { plugin = \"static\";\n timeout_ms = 0; } );\n", MUSTER_ECONFIG, "muster.conf:2: 'timeout_ms' must be between 1 and");
	expect_error("chain = ( { plugin = \"static\";\n config = 3; } );\n", MUSTER_ECONFIG, "muster.conf:2: 'config' must be a group");
	expect_error("chain = ( " GOOD_ENTRY ",\n " GOOD_ENTRY " );\n", MUSTER_ECONFIG, "muster.conf:2: entry name 'static' is already used at line 1; set 'name'");
	expect_error("strict = \"yes\";\nchain = ( " GOOD_ENTRY " );\n", MUSTER_ECONFIG, "muster.conf:1: 'strict' must be true or false");
	expect_error("plugin_path = 3;\nchain = ( " GOOD_ENTRY " );\n", MUSTER_ECONFIG, "muster.conf:1: 'plugin_path' must be a string or a list of strings");
	expect_error("chain = ( { plugin = \"static\";\n name = \"\"; } );\n", MUSTER_ECONFIG, "muster.conf:2: 'name' must not be empty");
}

static void keywords_ignore_case_in_ascii(void **state)
{
	struct captured_log log;
	muster_ctx *ctx = open_text("chain = ( { plugin = \"static\"; on_success = \"RETURN\"; on_unavail = \"Merge\"; "
	                            "config = { jobs = { w = [\"w:1\"]; }; }; } );", &log);
	muster_ctx_free(ctx);
}

static void missing_or_unreadable_file(void **state)
{
	muster_ctx *ctx = NULL;
	muster_error err;
	assert_int_equal(muster_ctx_open(&ctx, "/nonexistent/muster.conf", NULL, &err), MUSTER_ECONFIG);
	assert_string_equal(err.message, "cannot read /nonexistent/muster.conf: No such file or directory");
	assert_int_equal(muster_ctx_open(&ctx, "/tmp", NULL, &err), MUSTER_ECONFIG);
	assert_string_equal(err.message, "cannot read /tmp: not a regular file");
	assert_int_equal(muster_ctx_open(NULL, "/tmp", NULL, &err), MUSTER_EINVAL);
}

static void unknown_keys_are_warned_with_line(void **state)
{
	struct captured_log log;
	muster_ctx *ctx = open_text("colour = \"blue\";\n"
	                            "chain = ( { plugin = \"static\";\n"
	                            "  on_sucess = \"merge\";\n"
	                            "  config = { jobz = 1;\n"
	                            "    jobs = { w = [\"w:1\"]; }; task = { type = \"w\"; indx = 0; }; }; } );\n",
	                            &log);
	assert_non_null(strstr(log.text, "4 "));
	assert_non_null(strstr(log.text, "unknown option 'colour' (")); /* the path precedes :1 */
	assert_non_null(strstr(log.text, "muster.conf:1)"));
	assert_non_null(strstr(log.text, "unknown option 'on_sucess' ("));
	assert_non_null(strstr(log.text, "muster.conf:3)"));
	assert_non_null(strstr(log.text, "unknown option 'jobz' ("));
	assert_non_null(strstr(log.text, "muster.conf:4)"));
	assert_non_null(strstr(log.text, "unknown option 'indx' ("));
	assert_non_null(strstr(log.text, "muster.conf:5)"));
	assert_null(strstr(log.text, "did you mean")); /* only where it is an error */
	assert_null(strstr(log.text, "'jobs'"));
	assert_null(strstr(log.text, "'w'"));
	muster_ctx_free(ctx);
}

static void dropins_override_in_byte_order(void **state)
{
	const char *path = write_config("chain = ( { plugin = \"static\"; config = { jobs = { main = [\"m:1\"]; }; }; } );\n");
	write_file("muster.conf.d/20-late.conf",
	           "chain = ( { plugin = \"static\"; config = { jobs = { late = [\"l:1\"]; }; }; } );\n");
	write_file("muster.conf.d/10-early.conf",
	           "chain = ( { plugin = \"static\"; config = { jobs = { early = [\"e:1\"]; }; }; } );\n");
	write_file("muster.conf.d/30-ignored.txt", "not a config\n");
	write_file("muster.conf.d/Z.conf", "strict = false;\n");
	muster_ctx *ctx = NULL;
	muster_error err;
	assert_int_equal(muster_ctx_open(&ctx, path, NULL, &err), 0);
	muster_result *r = resolve_ok(ctx);
	assert_string_equal(muster_result_job_name(r, 0), "late");
	muster_result_free(r);
	muster_ctx_free(ctx);

	write_file("muster.conf.d/40-broken.conf", "chain = (\n");
	assert_int_equal(muster_ctx_open(&ctx, path, NULL, &err), MUSTER_ECONFIG);
	assert_non_null(strstr(err.message, "muster.conf.d/40-broken.conf:"));
}

static void include_is_relative_to_the_file(void **state)
{
	const char *path = write_config("@include \"chain.inc\"\n");
	write_file("chain.inc", "chain = ( { plugin = \"static\"; config = { jobs = { inc = [\"i:1\"]; }; }; } );\n");
	muster_ctx *ctx = NULL;
	muster_error err;
	assert_int_equal(muster_ctx_open(&ctx, path, NULL, &err), 0);
	muster_result *r = resolve_ok(ctx);
	assert_string_equal(muster_result_job_name(r, 0), "inc");
	muster_result_free(r);
	muster_ctx_free(ctx);
}

static void muster_conf_environment_and_default(void **state)
{
	const char *path = write_config("chain = ( " GOOD_ENTRY " );\n");
	setenv("MUSTER_CONF", path, 1);
	muster_ctx *ctx = NULL;
	muster_error err;
	assert_int_equal(muster_ctx_open(&ctx, NULL, NULL, &err), 0);
	assert_string_equal(muster_ctx_config_path(ctx), path);
	muster_ctx_free(ctx);
	/* An explicit path wins over the environment. */
	assert_int_equal(muster_ctx_open(&ctx, "/nonexistent/x.conf", NULL, &err), MUSTER_ECONFIG);
	unsetenv("MUSTER_CONF");
	/* Without either, the installed default is read. */
	int rc = muster_ctx_open(&ctx, NULL, NULL, &err);
	if (rc == 0) {
		assert_string_equal(muster_ctx_config_path(ctx), MUSTER_DEFAULT_CONFIG);
		muster_ctx_free(ctx);
	} else {
		assert_non_null(strstr(err.message, MUSTER_DEFAULT_CONFIG));
	}
}

static void plugin_path_forms(void **state)
{
	/* A string with colons, and a list; unknown dirs are skipped. */
	const char *forms[] = {
		"plugin_path = \"/nonexistent/a:/nonexistent/b\";\n",
		"plugin_path = [\"/nonexistent/a\", \"/nonexistent/b\"];\n",
	};
	for (size_t i = 0; i < 2; i++) {
		char text[512];
		snprintf(text, sizeof(text), "%schain = ( { plugin = \"nothere\"; } );\n", forms[i]);
		muster_ctx *ctx = open_text(text, NULL);
		muster_entry_info info;
		assert_int_equal(muster_ctx_entry_info(ctx, 0, &info), 0);
		assert_non_null(strstr(info.reason, "not found in /nonexistent/a:/nonexistent/b:"));
		muster_ctx_free(ctx);
	}
}

static void strerror_names_every_code(void **state)
{
	for (int code = 0; code >= MUSTER_ECONFLICT; code--)
		assert_string_not_equal(muster_strerror(code), "unknown error");
	assert_string_equal(muster_strerror(-999), "unknown error");
	assert_string_equal(muster_version(), MUSTER_VERSION);
}

static int teardown(void **state)
{
	testutil_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(errors_name_file_and_line, teardown),
		cmocka_unit_test_teardown(keywords_ignore_case_in_ascii, teardown),
		cmocka_unit_test_teardown(missing_or_unreadable_file, teardown),
		cmocka_unit_test_teardown(unknown_keys_are_warned_with_line, teardown),
		cmocka_unit_test_teardown(dropins_override_in_byte_order, teardown),
		cmocka_unit_test_teardown(include_is_relative_to_the_file, teardown),
		cmocka_unit_test_teardown(muster_conf_environment_and_default, teardown),
		cmocka_unit_test_teardown(plugin_path_forms, teardown),
		cmocka_unit_test_teardown(strerror_names_every_code, teardown),
	};
	return run_tap_tests(tests, NULL, NULL);
}
