/* The chain: every status × action, the last entry's finality, merged data
 * surviving later failures, time budgets, and the failure summary. */
#include <config.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const char *const status_names[] = {"success", "notfound", "unavail", "tryagain"};
static const char *const action_names[] = {"return", "continue", "merge"};
static const int status_codes[] = {0, MUSTER_ENOTFOUND, MUSTER_EUNAVAIL, MUSTER_ETRYAGAIN};

/* The first entry answers `status` with job a; the second always succeeds
 * with job b. */
static const char *two_entries(int status, int action)
{
	static char text[1024];
	snprintf(text, sizeof(text),
	         "chain = (\n"
	         "  { plugin = \"stub\"; name = \"one\"; on_%s = \"%s\";\n"
	         "    config = { status = \"%s\"; reason = \"first says %s\"; jobs = { a = [\"a0:1\"]; }; }; },\n"
	         "  { plugin = \"stub_b\"; name = \"two\";\n"
	         "    config = { jobs = { b = [\"b0:1\"]; }; }; }\n"
	         ");\n",
	         status_names[status], action_names[action], status_names[status],
	         status_names[status]);
	return text;
}

static int resolve_text(const char *text, char **json, muster_error *err)
{
	muster_ctx *ctx = open_text(text, NULL);
	muster_result *r = NULL;
	int rc = muster_resolve(&r, ctx, err);
	*json = rc == 0 ? json_of(r) : NULL;
	if (rc == 0)
		assert_null(err->message[0] ? "message not cleared" : NULL);
	muster_result_free(r);
	muster_ctx_free(ctx);
	return rc;
}

/* `text` resolves, and to exactly `want`. */
static void expect_cluster(const char *text, const char *want)
{
	char *json = NULL;
	muster_error err;
	if (resolve_text(text, &json, &err) != 0)
		fail_msg("%s", err.message);
	if (strcmp(json, want) != 0)
		fail_msg("%s, not %s", json, want);
	muster_free(json);
}

static void every_status_and_action(void **state)
{
	for (int s = 0; s < 4; s++) {
		for (int a = 0; a < 3; a++) {
			char *json;
			muster_error err;
			int rc = resolve_text(two_entries(s, a), &json, &err);
			const char *want;
			int want_rc = 0;
			if (s == 0)
				want = a == 0 ? "{\"cluster\":{\"a\":[\"a0:1\"]}}"
				       : a == 1 ? "{\"cluster\":{\"b\":[\"b0:1\"]}}"
				                : "{\"cluster\":{\"a\":[\"a0:1\"],\"b\":[\"b0:1\"]}}";
			else if (a == 0)
				want = NULL, want_rc = status_codes[s];
			else
				want = "{\"cluster\":{\"b\":[\"b0:1\"]}}";
			if (rc != want_rc)
				fail_msg("%s/%s: rc %d, want %d (%s)", status_names[s], action_names[a], rc,
				         want_rc, rc ? err.message : json);
			if (want) {
				assert_string_equal(json, want);
			} else {
				char needle[128];
				snprintf(needle, sizeof(needle), "stub(one): %s: first says %s (",
				         status_names[s], status_names[s]);
				assert_non_null(strstr(err.message, needle));
				assert_null(strstr(err.message, "stub_b(two)"));
			}
			muster_free(json);
		}
	}
}

/* The last entry's answer is final, whatever its actions say. */
static void last_entry_is_final(void **state)
{
	for (int s = 0; s < 4; s++) {
		char text[512];
		snprintf(text, sizeof(text),
		         "chain = ( { plugin = \"stub\"; on_%s = \"%s\";"
		         " config = { status = \"%s\"; jobs = { a = [\"a0:1\"]; }; }; } );",
		         status_names[s], s == 0 ? "continue" : "return", status_names[s]);
		char *json;
		muster_error err;
		int rc = resolve_text(text, &json, &err);
		assert_int_equal(rc, status_codes[s]);
		if (s == 0)
			assert_string_equal(json, "{\"cluster\":{\"a\":[\"a0:1\"]}}");
		muster_free(json);
	}
}

/* Once something is merged, later failures (even `return`) keep it. */
static void merged_data_survives_later_failures(void **state)
{
	char *json;
	muster_error err;
	int rc = resolve_text(
		"chain = (\n"
		" { plugin = \"stub\"; name = \"m\"; on_success = \"merge\"; config = { jobs = { a = [\"a0:1\"]; }; }; },\n"
		" { plugin = \"stub_b\"; name = \"x\"; on_unavail = \"return\"; config = { status = \"unavail\"; }; },\n"
		" { plugin = \"stub\"; name = \"never\"; config = { jobs = { c = [\"c0:1\"]; }; }; }\n"
		");",
		&json, &err);
	assert_int_equal(rc, 0);
	assert_string_equal(json, "{\"cluster\":{\"a\":[\"a0:1\"]}}");
	muster_free(json);
}

static void failure_lists_every_entry(void **state)
{
	char *json;
	muster_error err;
	int rc = resolve_text(
		"chain = (\n"
		" { plugin = \"stub\"; name = \"first\"; config = { status = \"notfound\"; reason = \"not here\"; }; },\n"
		" { plugin = \"stub_b\"; name = \"second\"; config = { status = \"tryagain\"; reason = \"3/4 ready\"; }; }\n"
		");",
		&json, &err);
	assert_int_equal(rc, MUSTER_ETRYAGAIN);
	assert_int_equal(err.code, MUSTER_ETRYAGAIN);
	/* The failure first, then what found nothing of its own. */
	assert_non_null(strstr(err.message, "no backend could resolve the cluster: "
	                                    "stub_b(second): tryagain: 3/4 ready ("));
	assert_non_null(strstr(err.message, "muster.conf:3); stub(first): notfound: not here ("));
	assert_non_null(strstr(err.message, "muster.conf:2)"));
}

static void overrunning_the_budget_is_unavail(void **state)
{
	char *json;
	muster_error err;
	int rc = resolve_text(
		"chain = (\n"
		" { plugin = \"stub\"; name = \"slow\"; timeout_ms = 20; config = { sleep_ms = 120; jobs = { a = [\"a:1\"]; }; }; },\n"
		" { plugin = \"stub_b\"; name = \"fast\"; config = { status = \"notfound\"; }; }\n"
		");",
		&json, &err);
	assert_int_equal(rc, MUSTER_ENOTFOUND);
	assert_non_null(strstr(err.message, "stub(slow): unavail: no answer within its 20 ms budget (took "));
}

static int count_level(const char *text, int level)
{
	char prefix[8];
	int n = 0;
	snprintf(prefix, sizeof(prefix), "%d ", level);
	for (const char *line = text; *line;) {
		n += strncmp(line, prefix, strlen(prefix)) == 0;
		const char *end = strchr(line, '\n');
		if (!end)
			break;
		line = end + 1;
	}
	return n;
}

/* A backend that failed before another answered is one warning each, with
 * the entry, the reason and file:line, logged only once the chain has
 * succeeded; notfound is not a failure.  Under strict it fails the chain. */
#define FALLBACK_CHAIN \
	"chain = (\n" \
	" { plugin = \"stub\"; name = \"gone\"; config = { status = \"notfound\"; }; },\n" \
	" { plugin = \"stub\"; name = \"broken\"; config = { status = \"unavail\"; reason = \"bad\"; }; },\n" \
	" { plugin = \"stub_b\"; name = \"late\"; config = { status = \"tryagain\"; reason = \"soon\"; }; },\n" \
	" { plugin = \"stub\"; name = \"answers\"; config = { jobs = { a = [\"a0:1\"]; }; }; }\n" \
	");"

static void failures_before_an_answer_are_warned(void **state)
{
	struct captured_log log;
	muster_ctx *ctx = open_text(FALLBACK_CHAIN, &log);
	muster_result *r = resolve_ok(ctx);
	assert_string_equal(muster_result_source(r), "answers");
	muster_result_free(r);
	assert_int_equal(count_level(log.text, MUSTER_LOG_WARNING), 2);
	assert_non_null(strstr(log.text, "4 stub(broken): unavail: bad ("));
	assert_non_null(strstr(log.text, "muster.conf:3)\n4 stub_b(late): tryagain: soon ("));
	assert_non_null(strstr(log.text, "muster.conf:4)\n"));
	assert_null(strstr(log.text, "4 stub(gone)"));
	muster_ctx_free(ctx);

	char *json;
	muster_error err;
	assert_int_equal(resolve_text("strict = true;\n" FALLBACK_CHAIN, &json, &err), MUSTER_EUNAVAIL);
	assert_non_null(strstr(err.message, "stub(broken): unavail: bad ("));
	assert_non_null(strstr(err.message, "muster.conf:4); with strict = true"));
}

static void missing_plugin_answers_unavail_and_is_logged_once(void **state)
{
	struct captured_log log;
	muster_ctx *ctx = open_text(
		"chain = ( { plugin = \"no_such_backend\"; }, { plugin = \"static\"; config = { jobs = { w = [\"w:1\"]; }; }; } );",
		&log);
	assert_non_null(strstr(log.text, "4 unknown plugin 'no_such_backend' ("));
	assert_non_null(strstr(log.text, "muster.conf:1)"));
	for (int i = 0; i < 3; i++) {
		muster_result *r = resolve_ok(ctx);
		assert_string_equal(muster_result_source(r), "static");
		muster_result_free(r);
	}
	/* Logged once, at open; the resolves log it only at INFO. */
	assert_int_equal(count_level(log.text, MUSTER_LOG_WARNING), 1);
	assert_non_null(strstr(log.text, "6 no_such_backend(no_such_backend): unavail: plugin 'no_such_backend' not found"));

	muster_entry_info info;
	assert_int_equal(muster_ctx_entry_count(ctx), 2);
	assert_int_equal(muster_ctx_entry_info(ctx, 0, &info), 0);
	assert_int_equal(info.state, MUSTER_PLUGIN_FAILED);
	assert_non_null(strstr(info.reason, "not found in "));
	assert_int_equal(muster_ctx_entry_info(ctx, 1, &info), 0);
	assert_int_equal(info.state, MUSTER_PLUGIN_BUILTIN);
	assert_null(info.file);
	assert_int_equal(info.abi_major, 1);
	assert_int_equal(muster_ctx_entry_info(ctx, 2, &info), MUSTER_EINVAL);
	muster_ctx_free(ctx);
}

static void strict_makes_a_missing_plugin_fatal(void **state)
{
	muster_error err;
	assert_int_equal(open_text_fails("strict = true;\nchain = ( { plugin = \"no_such_backend\"; } );", &err),
	                 MUSTER_ECONFIG);
	assert_non_null(strstr(err.message, "unknown plugin 'no_such_backend' ("));
	assert_non_null(strstr(err.message, "muster.conf:2)"));

	/* The same through the context flag. */
	muster_options o = MUSTER_OPTIONS_INIT;
	o.flags = MUSTER_CTX_STRICT;
	muster_ctx *ctx = NULL;
	assert_int_equal(muster_ctx_open(&ctx, write_config("chain = ( { plugin = \"nope\"; } );"), &o, &err),
	                 MUSTER_ECONFIG);
	assert_null(ctx);
}

static void failing_open_is_a_config_error(void **state)
{
	muster_error err;
	assert_int_equal(open_text_fails("chain = ( { plugin = \"stub\"; config = {\n fail_open = true; }; } );", &err),
	                 MUSTER_ECONFIG);
	assert_string_equal(strstr(err.message, "muster.conf:2:"), "muster.conf:2: stub(stub): told to fail");
}

static void loaded_plugin_is_introspectable(void **state)
{
	muster_ctx *ctx = open_text("chain = ( { plugin = \"stub\"; name = \"s\"; config = { jobs = { a = [\"x\"]; }; }; } );", NULL);
	muster_entry_info info;
	assert_int_equal(muster_ctx_entry_info(ctx, 0, &info), 0);
	assert_int_equal(info.state, MUSTER_PLUGIN_LOADED);
	assert_string_equal(info.plugin, "stub");
	assert_string_equal(info.instance, "s");
	assert_string_equal(info.version, "1.0-test");
	assert_non_null(strstr(info.file, "/stub.so"));
	assert_int_equal(info.config_line, 1);
	muster_ctx_free(ctx);
}

/* Is anything bound to 127.0.0.1:port? */
static int port_is_free(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	                          .sin_port = htons((unsigned short)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int ok = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

static void reserved_port_is_held_until_released(void **state)
{
	muster_ctx *ctx = open_text(
		"chain = ( { plugin = \"stub\"; on_success = \"merge\"; config = { hold_port = true; jobs = { a = [\"a:1\"]; }; }; },\n"
		" { plugin = \"stub_b\"; config = { hold_port = true; jobs = { b = [\"b:1\"]; }; }; } );",
		NULL);
	muster_result *r = resolve_ok(ctx);
	int port = muster_result_reserved_port(r);
	assert_true(port > 0);
	assert_false(port_is_free(port));
	assert_int_equal(muster_result_release_port(r), 0);
	assert_int_equal(muster_result_reserved_port(r), -1);
	assert_true(port_is_free(port));
	assert_int_equal(muster_result_release_port(r), 0); /* twice is harmless */
	muster_result_free(r);

	/* Freeing the result releases it too (and LSan sees no leaked socket). */
	r = resolve_ok(ctx);
	port = muster_result_reserved_port(r);
	assert_false(port_is_free(port));
	muster_result_free(r);
	assert_true(port_is_free(port));
	assert_int_equal(muster_result_reserved_port(NULL), -1);
	muster_ctx_free(ctx);
}

/* add_task_range through the real host: ports counted up across digit
 * boundaries, appended indices, and the host's checks of host and ports. */
static void task_ranges(void **state)
{
	char *json = NULL;
	muster_error err;
	(void)state;
	expect_cluster(
		"chain = ( { plugin = \"stub\"; config = { jobs = { w = [\"a:1\"]; };\n"
		"  ranges = ( { job = \"w\"; first = -1; count = 3; host = \"h\"; port = 9998; },\n"
		"             { job = \"w\"; first = 4; count = 2; host = \"g.x\"; port = 99; },\n"
		"             { job = \"w\"; first = 6; count = 0; host = \"h\"; port = 1; },\n"
		"             { job = \"p\"; first = 0; count = 1; host = \"10.0.0.1\"; port = 65535; } ); }; } );\n",
		"{\"cluster\":{\"w\":[\"a:1\",\"h:9998\",\"h:9999\",\"h:10000\","
		"\"g.x:99\",\"g.x:100\"],\"p\":[\"10.0.0.1:65535\"]}}");
	/* Ports that gain four digits within one range: 1 ... 10000, each one. */
	assert_int_equal(resolve_text(
		"chain = ( { plugin = \"stub\"; config = {\n"
		"  ranges = ( { job = \"q\"; first = 0; count = 10000; host = \"h\"; port = 1; } ); }; } );\n",
		&json, &err), 0);
	char *p = strstr(json, "{\"q\":[");
	assert_non_null(p);
	p += strlen("{\"q\":[");
	for (long port = 1; port <= 10000; port++) {
		char want[16];
		int n = snprintf(want, sizeof(want), "\"h:%ld\"%c", port, port < 10000 ? ',' : ']');
		if (strncmp(p, want, (size_t)n) != 0)
			fail_msg("port %ld: found \"%.16s\"", port, p);
		p += n;
	}
	muster_free(json);

	static const struct {
		const char *range, *reason;
	} bad[] = {
		{ "job = \"w\"; first = 0; count = 2; host = \"h\"; port = 65535;",
		  "tasks of w from 0: 2 ports from 65535 are not all from 1 to 65535" },
		{ "job = \"w\"; first = 0; count = 1; host = \"h\"; port = 0;",
		  "tasks of w from 0: 1 ports from 0 are not all from 1 to 65535" },
		{ "job = \"w\"; first = 0; count = -1; host = \"h\"; port = 1;",
		  "tasks of w from 0: -1 ports from 1 are not all from 1 to 65535" },
		{ "job = \"w\"; first = 0; count = 2; host = \"h h\"; port = 1;",
		  "tasks of w: address \"h h:1\" is not HOST:PORT" },
		{ "job = \"w\"; first = 0; count = 2; host = \"[fd00::1]\"; port = 1;", NULL },
		{ "job = \"w\"; first = 1; count = 2; host = \"h\"; port = 1; }, "
		  "{ job = \"w\"; first = 2; count = 1; host = \"h\"; port = 5;",
		  "task w:2 is given twice" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char text[512];
		snprintf(text, sizeof(text),
		         "chain = ( { plugin = \"stub\"; config = { ranges = ( { %s } ); }; } );\n",
		         bad[i].range);
		int rc = resolve_text(text, &json, &err);
		if (!bad[i].reason) {
			assert_int_equal(rc, 0);
			muster_free(json);
			continue;
		}
		assert_int_not_equal(rc, 0);
		if (!strstr(err.message, bad[i].reason))
			fail_msg("range %zu: \"%s\" lacks \"%s\"", i, err.message, bad[i].reason);
	}
}

/* Tasks that come out of order, or leave holes, through ranges: a job
 * keeps indices only once one differs from its position, and sorting
 * can make it dense again. */
static void task_order(void **state)
{
	(void)state;
	static const struct {
		const char *ranges, *want;
	} cases[] = {
		{ "{ job = \"w\"; first = 3; count = 2; host = \"h\"; port = 1; },"
		  "{ job = \"w\"; first = 0; count = 3; host = \"g\"; port = 1; }",
		  "{\"cluster\":{\"w\":[\"g:1\",\"g:2\",\"g:3\",\"h:1\",\"h:2\"]}}" },
		{ "{ job = \"w\"; first = 0; count = 2; host = \"h\"; port = 1; },"
		  "{ job = \"w\"; first = 5; count = 1; host = \"g\"; port = 9; }",
		  "{\"cluster\":{\"w\":{\"0\":\"h:1\",\"1\":\"h:2\",\"5\":\"g:9\"}}}" },
		{ "{ job = \"w\"; first = 2; count = 1; host = \"h\"; port = 1; },"
		  "{ job = \"w\"; first = 0; count = 1; host = \"g\"; port = 1; }",
		  "{\"cluster\":{\"w\":{\"0\":\"g:1\",\"2\":\"h:1\"}}}" },
		{ "{ job = \"w\"; first = 1; count = 2; host = \"h\"; port = 1; },"
		  "{ job = \"w\"; first = 0; count = 1; host = \"g\"; port = 1; },"
		  "{ job = \"w\"; first = -1; count = 1; host = \"f\"; port = 1; }",
		  "{\"cluster\":{\"w\":[\"g:1\",\"h:1\",\"h:2\",\"f:1\"]}}" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char text[640];
		snprintf(text, sizeof(text),
		         "chain = ( { plugin = \"stub\"; config = { ranges = ( %s ); }; } );\n",
		         cases[i].ranges);
		expect_cluster(text, cases[i].want);
	}
}

/* reserve_tasks is a hint: it adds the job, a negative count is refused by
 * name, and a huge one reserves no more than the host's bound (under
 * AddressSanitizer, an allocation of the count asked would abort). */
static void reserve_hint(void **state)
{
	char *json = NULL;
	muster_error err;
	(void)state;
	expect_cluster(
		"chain = ( { plugin = \"stub\"; config = {\n"
		"  reserve = ( { job = \"w\"; count = 3; }, { job = \"e\"; count = 2; } );\n"
		"  ranges = ( { job = \"w\"; first = 0; count = 5; host = \"h\"; port = 1; } ); }; } );\n",
		"{\"cluster\":{\"w\":[\"h:1\",\"h:2\",\"h:3\",\"h:4\",\"h:5\"],\"e\":{}}}");
	expect_cluster(
		"chain = ( { plugin = \"stub\"; config = {\n"
		"  reserve = ( { job = \"w\"; count = 1000000000000000L; } );\n"
		"  ranges = ( { job = \"w\"; first = 0; count = 2; host = \"h\"; port = 1; } ); }; } );\n",
		"{\"cluster\":{\"w\":[\"h:1\",\"h:2\"]}}");
	assert_int_not_equal(resolve_text(
		"chain = ( { plugin = \"stub\"; config = {\n"
		"  reserve = ( { job = \"w\"; count = -1; } ); }; } );\n", &json, &err), 0);
	assert_non_null(strstr(err.message, "reserve_tasks: -1 tasks of w"));
}

static int teardown(void **state)
{
	testutil_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(every_status_and_action, teardown),
		cmocka_unit_test_teardown(last_entry_is_final, teardown),
		cmocka_unit_test_teardown(merged_data_survives_later_failures, teardown),
		cmocka_unit_test_teardown(failure_lists_every_entry, teardown),
		cmocka_unit_test_teardown(failures_before_an_answer_are_warned, teardown),
		cmocka_unit_test_teardown(overrunning_the_budget_is_unavail, teardown),
		cmocka_unit_test_teardown(missing_plugin_answers_unavail_and_is_logged_once, teardown),
		cmocka_unit_test_teardown(strict_makes_a_missing_plugin_fatal, teardown),
		cmocka_unit_test_teardown(failing_open_is_a_config_error, teardown),
		cmocka_unit_test_teardown(loaded_plugin_is_introspectable, teardown),
		cmocka_unit_test_teardown(reserved_port_is_held_until_released, teardown),
		cmocka_unit_test_teardown(task_ranges, teardown),
		cmocka_unit_test_teardown(task_order, teardown),
		cmocka_unit_test_teardown(reserve_hint, teardown),
	};
	return run_tap_tests(tests, NULL, NULL);
}
