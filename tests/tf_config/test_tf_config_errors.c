/*
 * tf_config: bad input.  Every case answers notfound or unavail with a
 * reason that says where and why — no crash, no leak (the tests run under
 * ASan/LSan in CI) — and bad options fail muster_ctx_open with file:line.
 */
#include <config.h>

#include "tfc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Resolving `json` fails as unavail, with each of the NULL-terminated
 * fragments in the message. */
static void unavail(const char *json, ...)
{
	muster_error err;
	va_list ap;
	const char *want;

	assert_int_equal(tfc_resolve_fails(NULL, json, &err), MUSTER_EUNAVAIL);
	tfc_assert_contains(err.message, "tf_config(tfc): unavail: ");
	va_start(ap, json);
	while ((want = va_arg(ap, const char *)) != NULL)
		tfc_assert_contains(err.message, want);
	va_end(ap);
}

/* A deliberate difference from TF (unset is "{}" there): notfound, so a
 * chain falls back to its next entry. */
static void unset_is_notfound(void **state)
{
	muster_error err;

	(void)state;
	unsetenv(TFC_VAR);
	assert_int_equal(tfc_resolve_fails(NULL, NULL, &err), MUSTER_ENOTFOUND);
	tfc_assert_contains(err.message, "tf_config(tfc): notfound: " TFC_VAR " is not set");
}

static void empty_is_unavail(void **state)
{
	(void)state;
	unavail("", TFC_VAR " is empty; expected JSON", NULL);
	/* Whitespace only: JSON that ends before its value. */
	unavail("  \n", "not valid JSON: unexpected end of input at byte 3 (line 2, column 1)", NULL);
}

static void not_json(void **state)
{
	(void)state;
	unavail("worker0:2222", TFC_VAR " is not valid JSON: expecting a value at byte 0 (line 1, column 1)",
	        "near \"worker0:2222\"", NULL);
	/* Python: "Expecting value: line 1 column 14 (char 13)". */
	unavail("{\"cluster\": [}", "expecting a value at byte 13 (line 1, column 14)",
	        "near \"{\\\"cluster\\\": [}\"", NULL);
	/* Python: "Expecting value: line 2 column 8 (char 9)". */
	unavail("{\n  \"a\": tru\n}", "expecting a value at byte 9 (line 2, column 8)", NULL);
	/* Single quotes (a Python repr pasted as TF_CONFIG). */
	unavail("{'cluster': {}}",
	        "expecting a property name in double quotes at byte 1 (line 1, column 2)", NULL);
	/* The excerpt is cut around the error and escapes control bytes. */
	unavail("{\"cluster\": {\"worker\": [\"a:1\", \"b:1\"],\n\"ps\": [\"p:1\",, \"p:2\"]}}",
	        "expecting a value at byte 52 (line 2, column 14)", "near \"],\\n\\\"ps\\\": [\\\"p:1\\\",, \\\"p:2\\\"]}}\"",
	        NULL);
	/* Each of Python's complaints, at Python's offset. */
	unavail("{\"a\" 1}", "expecting ':' at byte 5 (line 1, column 6)", NULL);
	unavail("{\"a\": 1 \"b\": 2}", "expecting ',' or '}' at byte 8", NULL);
	unavail("[\"a\" \"b\"]", "expecting ',' or ']' at byte 5", NULL);
	unavail("{\"a\": \"x\\qy\"}", "invalid escape at byte 8", NULL);
	unavail("{\"a\": \"\\u12\"}", "invalid \\uXXXX escape at byte 7", NULL);
	unavail("{\"a\": \"tab\there\"}", "invalid control character in a string at byte 10",
	        "near \"{\\\"a\\\": \\\"tab\\there\\\"}\"", NULL);
	/* What cJSON alone would let through, and Python refuses. */
	unavail("\xef\xbb\xbf{}", "expecting a value at byte 0", NULL);
	unavail("{\"task\": {\"index\": 01}}", "expecting ',' or '}' at byte 20", NULL);
	unavail("{\"a\": 1.}", "expecting ',' or '}' at byte 7", NULL);
	unavail("{\"a\": -}", "expecting a value at byte 6", NULL);
	unavail("{\"a\":\x01 1}", "expecting a value at byte 5", NULL);
	/* Python's "Extra data". */
	unavail("{} {}", "extra data after the value at byte 3", NULL);
	unavail("{\"cluster\": {}}x", "extra data after the value at byte 15", NULL);
	/* NaN is JSON to Python, not to us. */
	unavail("{\"task\": {\"index\": NaN}}", "expecting a value at byte 19", NULL);
}

static void truncated_json(void **state)
{
	const char *full = "{\"cluster\": {\"worker\": [\"w0:2222\", \"w1:2222\"]}, "
	                   "\"task\": {\"type\": \"worker\", \"index\": 1}}";
	size_t n = strlen(full), cut;
	char buf[256], want[96];

	(void)state;
	/* Every proper prefix fails at its end (or at a bad byte before it). */
	for (cut = 1; cut < n; cut++) {
		muster_error err;

		memcpy(buf, full, cut);
		buf[cut] = '\0';
		assert_int_equal(tfc_resolve_fails(NULL, buf, &err), MUSTER_EUNAVAIL);
		tfc_assert_contains(err.message, "is not valid JSON");
	}
	unavail("{\"cluster\": {\"worker\": [\"a:1\"", "unexpected end of input at byte 29", NULL);
	snprintf(want, sizeof(want), "unexpected end of input at byte %zu", n - 1);
	memcpy(buf, full, n - 1);
	buf[n - 1] = '\0';
	unavail(buf, want, NULL);
	unavail("{\"cluster\": {\"worker\": [\"unterminated",
	        "unterminated string starting at byte 24 (line 1, column 25)", NULL);
}

static void top_level_not_object(void **state)
{
	(void)state;
	unavail("[\"worker0:2222\"]", TFC_VAR " must be a JSON object, not an array", NULL);
	unavail("\"{}\"", "must be a JSON object, not a string", NULL);
	unavail("42", "must be a JSON object, not a number", NULL);
	unavail("null", "must be a JSON object, not null", NULL);
	unavail("true", "must be a JSON object, not a boolean", NULL);
}

static void cluster_wrong_types(void **state)
{
	(void)state;
	unavail("{\"cluster\": [\"a:1\"]}", TFC_VAR ": cluster must be an object of jobs, not an array",
	        NULL);
	unavail("{\"cluster\": \"worker=a:1\"}", "cluster must be an object of jobs, not a string", NULL);
	unavail("{\"cluster\": null}", "cluster must be an object of jobs, not null", NULL);
	unavail("{\"sparseCluster\": 3}", "sparseCluster must be an object of jobs, not a number",
	        NULL);
	unavail("{\"cluster\": {\"worker\": \"a:1\"}}",
	        TFC_VAR ": cluster.worker must be a list or an object of addresses, not a string", NULL);
	unavail("{\"cluster\": {\"worker\": 2}}", "cluster.worker must be a list or an object of "
	                                          "addresses, not a number", NULL);
	unavail("{\"cluster\": {\"my job\": true}}", "cluster[\"my job\"] must be a list", NULL);
	/* TF: "Task address 2222 must be bytes or unicode". */
	unavail("{\"cluster\": {\"worker\": [\"a:1\", 2222]}}",
	        TFC_VAR ": cluster.worker[1] must be a string, not a number", NULL);
	unavail("{\"cluster\": {\"worker\": [null]}}", "cluster.worker[0] must be a string, not null",
	        NULL);
	unavail("{\"cluster\": {\"worker\": [[\"a:1\"]]}}",
	        "cluster.worker[0] must be a string, not an array", NULL);
	unavail("{\"cluster\": {\"worker\": {\"1\": {\"host\": \"a\"}}}}",
	        "cluster.worker[\"1\"] must be a string, not an object", NULL);
	unavail("{\"sparseCluster\": {\"worker\": {\"1\": false}}}",
	        "sparseCluster.worker[\"1\"] must be a string, not a boolean", NULL);
	/* The core refuses an empty job name. */
	unavail("{\"cluster\": {\"\": [\"a:1\"]}}", "job name", NULL);
}

static void sparse_bad_keys(void **state)
{
	(void)state;
	unavail("{\"cluster\": {\"worker\": {\"a\": \"w:1\"}}}",
	        "cluster.worker has key \"a\", which is not a task index (an integer)", NULL);
	unavail("{\"cluster\": {\"worker\": {\"1.5\": \"w:1\"}}}", "has key \"1.5\", which is not", NULL);
	unavail("{\"cluster\": {\"worker\": {\"\": \"w:1\"}}}", "has key \"\", which is not", NULL);
	unavail("{\"cluster\": {\"worker\": {\"0x1\": \"w:1\"}}}", "has key \"0x1\", which is not", NULL);
	unavail("{\"cluster\": {\"worker\": {\"1__0\": \"w:1\"}}}", "has key \"1__0\"", NULL);
	unavail("{\"cluster\": {\"worker\": {\"_1\": \"w:1\"}}}", "has key \"_1\"", NULL);
	unavail("{\"cluster\": {\"worker\": {\"1 2\": \"w:1\"}}}", "has key \"1 2\"", NULL);
	unavail("{\"cluster\": {\"worker\": {\"-1\": \"w:1\"}}}",
	        "cluster.worker has key \"-1\": a task index cannot be negative", NULL);
	unavail("{\"cluster\": {\"worker\": {\"99999999999999999999999\": \"w:1\"}}}",
	        "a task index cannot exceed 2147483647", NULL);
	unavail("{\"cluster\": {\"worker\": {\"2147483648\": \"w:1\"}}}", "cannot exceed", NULL);
	/* Control bytes in a key are escaped in the message. */
	unavail("{\"cluster\": {\"worker\": {\"\\u0001x\": \"w:1\"}}}", "has key \"\\x01x\"", NULL);
}

static void sparse_duplicate_index(void **state)
{
	muster_result *res;

	(void)state;
	unavail("{\"cluster\": {\"worker\": {\"1\": \"a:1\", \"01\": \"b:1\"}}}",
	        "cluster.worker has task index 1 twice (keys \"1\" and \"01\")", NULL);
	unavail("{\"cluster\": {\"worker\": {\"0\": \"a:1\", \"-0\": \"b:1\"}}}",
	        "has task index 0 twice", NULL);
	unavail("{\"cluster\": {\"worker\": {\"3\": \"a:1\", \"3\": \"b:1\"}}}",
	        "has task index 3 twice", NULL);
	/* The largest index is fine. */
	res = tfc_resolve(NULL, "{\"cluster\": {\"worker\": {\"2147483647\": \"w:1\"}}}");
	assert_string_equal(muster_result_address(res, "worker", 2147483647L), "w:1");
	muster_result_free(res);
}

static void task_wrong_types(void **state)
{
	(void)state;
	unavail("{\"task\": [\"worker\", 0]}", TFC_VAR ": task must be an object, not an array", NULL);
	unavail("{\"task\": \"worker:0\"}", "task must be an object, not a string", NULL);
	unavail("{\"task\": null}", "task must be an object, not null", NULL);
	unavail("{\"task\": {\"type\": true}}",
	        "task.type must be a string or an integer, not a boolean", NULL);
	unavail("{\"task\": {\"type\": null}}", "task.type must be a string or an integer, not null",
	        NULL);
	unavail("{\"task\": {\"type\": [\"worker\"]}}", "not an array", NULL);
	unavail("{\"task\": {\"type\": {}}}", "not an object", NULL);
	unavail("{\"task\": {\"type\": 1.5}}", "task.type 1.5 is a number but not an integer", NULL);
	unavail("{\"task\": {\"type\": 1e300}}", "is a number but not an integer", NULL);
}

/* TF raises ValueError for a non-numeric index; muster also refuses a
 * negative or fractional one (Python's int() would take -1, truncate 1.5). */
static void task_index_errors(void **state)
{
	(void)state;
	unavail("{\"task\": {\"type\": \"worker\", \"index\": \"abc\"}}",
	        TFC_VAR ": task.index \"abc\" is not an integer", NULL);
	unavail("{\"task\": {\"index\": \"1.0\"}}", "task.index \"1.0\" is not an integer", NULL);
	unavail("{\"task\": {\"index\": \"\"}}", "task.index \"\" is not an integer", NULL);
	unavail("{\"task\": {\"index\": -1}}", "task.index -1 is negative", NULL);
	unavail("{\"task\": {\"index\": \"-3\"}}", "task.index \"-3\" is negative", NULL);
	unavail("{\"task\": {\"index\": -1e30}}", "is negative", NULL);
	unavail("{\"task\": {\"index\": 1.5}}", "task.index 1.5 is not an integer", NULL);
	unavail("{\"task\": {\"index\": -0.5}}", "task.index -0.5 is not an integer", NULL);
	unavail("{\"task\": {\"index\": 1e10}}", "task.index 10000000000 is above 2147483647", NULL);
	unavail("{\"task\": {\"index\": \"2147483648\"}}", "is above 2147483647", NULL);
	unavail("{\"task\": {\"index\": true}}", "task.index must be an integer, not a boolean", NULL);
	unavail("{\"task\": {\"index\": null}}", "task.index must be an integer, not null", NULL);
	unavail("{\"task\": {\"index\": [0]}}", "task.index must be an integer, not an array", NULL);
}

/* Text that cannot be a name or an address, refused at its byte: Python
 * keeps a lone surrogate and U+0000, and TF later fails on them or passes
 * them to gRPC cut short. */
static void text_that_names_nothing(void **state)
{
	muster_result *res;

	(void)state;
	unavail("{\"a\": \"\\ud800\"}",
	        "a lone UTF-16 surrogate escape (a high half with no low half after it) at byte 7 "
	        "(line 1, column 8)", NULL);
	unavail("{\"a\": \"x\\ud800\\u0041\"}", "a high half with no low half after it) at byte 8",
	        NULL);
	unavail("{\"a\": \"\\ud800\\u\"}", "a high half with no low half after it) at byte 7", NULL);
	unavail("{\"a\": \"\\uDC00\"}", "(a low half with no high half before it) at byte 7", NULL);
	unavail("{\"cluster\": {\"w\": [\"a\\u0000b:1\"]}}",
	        "a \\u0000 (NUL) escape in a string at byte 21", NULL);
	unavail("{\"w\\u0000\": 1}", "a \\u0000 (NUL) escape in a string at byte 3", NULL);
	/* Invalid UTF-8: a stray byte, an overlong form, a cut sequence, an
	 * encoded surrogate, beyond U+10FFFF. */
	unavail("{\"a\": \"x\xff\"}", "invalid UTF-8 at byte 8 (line 1, column 9)", NULL);
	unavail("{\"a\": \"\xc0\x80\"}", "invalid UTF-8 at byte 7", NULL);
	unavail("{\"a\": \"\xe2\x82\"}", "invalid UTF-8 at byte 7", NULL);
	unavail("{\"a\": \"\xed\xa0\x80\"}", "invalid UTF-8 at byte 7", NULL);
	unavail("{\"a\": \"\xf4\x90\x80\x80\"}", "invalid UTF-8 at byte 7", NULL);
	/* A pair, and UTF-8 up to four bytes, are names like any other. */
	res = tfc_resolve(NULL, "{\"cluster\": {\"w\\ud83d\\ude00\": [\"a:1\"], "
	                        "\"\xc3\xb6\xe2\x82\xac\xf0\x9f\x98\x80\": [\"b:1\"]}}");
	assert_int_equal(muster_result_task_count(res, "w\xf0\x9f\x98\x80"), 1);
	assert_int_equal(muster_result_task_count(res, "\xc3\xb6\xe2\x82\xac\xf0\x9f\x98\x80"), 1);
	muster_result_free(res);
}

/* The own task must be one TF can find: an empty type names no job, and
 * an index outside its job raises "No task with index" in TF. */
static void own_task_in_its_job(void **state)
{
	muster_ctx *ctx;
	muster_result *res;
	muster_error err;

	(void)state;
	unavail("{\"cluster\": {\"worker\": [\"a:1\"]}, \"task\": {\"type\": \"\", \"index\": 0}}",
	        TFC_VAR ": task.type is empty", NULL);
	unavail("{\"cluster\": {\"worker\": [\"a:1\", \"b:1\"]}, "
	        "\"task\": {\"type\": \"worker\", \"index\": 2}}",
	        TFC_VAR ": task.index 2 is not a task of job 'worker' (cluster.worker has 2 tasks)",
	        NULL);
	unavail("{\"cluster\": {\"worker\": {\"1\": \"a:1\", \"3\": \"b:1\"}}, "
	        "\"task\": {\"type\": \"worker\", \"index\": 2}}",
	        "task.index 2 is not a task of job 'worker'", NULL);
	unavail("{\"cluster\": {\"ps\": null}, \"task\": {\"type\": \"ps\", \"index\": 0}}",
	        "task.index 0 is not a task of job 'ps' (cluster.ps has 0 tasks)", NULL);
	unavail("{\"sparseCluster\": {\"worker\": {\"1\": \"a:1\"}}, "
	        "\"task\": {\"type\": \"worker\", \"index\": 0}}",
	        "(sparseCluster.worker has 1 task)", NULL);
	/* Listed (a sparse key in Python's int() form too), or outside the
	 * cluster (an evaluator), or no index at all: fine. */
	res = tfc_resolve(NULL, "{\"cluster\": {\"worker\": {\" 3\": \"a:1\"}}, "
	                        "\"task\": {\"type\": \"worker\", \"index\": 3}}");
	assert_int_equal(muster_result_task_index(res), 3);
	muster_result_free(res);
	res = tfc_resolve(NULL, "{\"cluster\": {\"worker\": [\"a:1\"]}, "
	                        "\"task\": {\"type\": \"evaluator\", \"index\": 0}}");
	assert_string_equal(muster_result_task_type(res), "evaluator");
	muster_result_free(res);
	res = tfc_resolve(NULL, "{\"cluster\": {\"worker\": [\"a:1\"]}, \"task\": {\"type\": \"worker\"}}");
	assert_int_equal(muster_result_task_index(res), -1);
	muster_result_free(res);
	/* The entry's task_id is checked the same way, and named. */
	ctx = tfc_ctx("variable = \"" TFC_VAR "\"; task_id = 4;");
	assert_int_equal(tfc_resolve_fails(ctx, "{\"cluster\": {\"worker\": [\"a:1\"]}, "
	                                        "\"task\": {\"type\": \"worker\", \"index\": 0}}",
	                                   &err),
	                 MUSTER_EUNAVAIL);
	tfc_assert_contains(err.message, "the entry's task_id 4 is not a task of job 'worker'");
	muster_ctx_free(ctx);
}

/* Addresses leave muster only as HOST:PORT; a bad one is named. */
static void bad_addresses(void **state)
{
	muster_result *res;

	(void)state;
	unavail("{\"cluster\": {\"worker\": [\"a:1\", \"[1.2.3.4:99]:8470\"]}}",
	        "task worker:1: address \"[1.2.3.4:99]:8470\" is not HOST:PORT: what is in brackets "
	        "is not an IPv6 address", NULL);
	unavail("{\"cluster\": {\"ps\": {\"7\": \"h:0\"}}}",
	        "task ps:7: address \"h:0\" is not HOST:PORT: the port is not a number from 1 to 65535",
	        NULL);
	unavail("{\"cluster\": {\"w\": [\"\\u001b[2Jh:1\"]}}",
	        "address \"\\x1b[2Jh:1\" is not HOST:PORT: byte 0x1b cannot be in a host name", NULL);
	unavail("{\"cluster\": {\"w\": [\"fd00::1:8470\"]}}", "a ':' in the host", NULL);
	unavail("{\"cluster\": {\"w\": [\"[fe80::1]:8470\"]}}",
	        "a link-local IPv6 address needs its zone", NULL);
	/* Names without a DNS lookup, IP literals, a zone where it belongs. */
	res = tfc_resolve(NULL, "{\"cluster\": {\"w\": [\"n1:1\", \"algo-1:2222\", "
	                        "\"worker-0.train.svc:2222\", \"10.0.0.1:65535\", \"[fd00::1]:1\", "
	                        "\"[fe80::1%eth0]:8470\", \"[::ffff:10.0.0.1]:2\"]}}");
	assert_int_equal(muster_result_task_count(res, "w"), 7);
	muster_result_free(res);
}

/* Overrides replace what they override: TF never reads it (it is lazy). */
static void overrides_skip_bad_fields(void **state)
{
	muster_ctx *ctx = tfc_ctx("variable = \"" TFC_VAR "\"; task_type = \"worker\"; task_id = 1; "
	                          "rpc_layer = \"grpc\";");
	muster_result *res;
	muster_error err;

	(void)state;
	res = tfc_resolve(ctx, "{\"cluster\": {\"worker\": [\"a:1\", \"b:1\"]}, \"task\": \"junk\", "
	                       "\"rpc_layer\": 7}");
	assert_string_equal(muster_result_task_type(res), "worker");
	assert_int_equal(muster_result_task_index(res), 1);
	assert_string_equal(muster_result_rpc_layer(res), "grpc");
	muster_result_free(res);
	muster_ctx_free(ctx);

	/* Only the type overridden: the bad index still counts. */
	ctx = tfc_ctx("variable = \"" TFC_VAR "\"; task_type = \"worker\";");
	res = tfc_resolve(ctx, "{\"task\": {\"type\": false, \"index\": 0}}");
	assert_string_equal(muster_result_task_type(res), "worker");
	muster_result_free(res);
	assert_int_equal(tfc_resolve_fails(ctx, "{\"task\": {\"type\": \"w\", \"index\": \"x\"}}", &err),
	                 MUSTER_EUNAVAIL);
	tfc_assert_contains(err.message, "task.index \"x\" is not an integer");
	muster_ctx_free(ctx);
}

static void top_level_strings_wrong_types(void **state)
{
	(void)state;
	unavail("{\"rpc_layer\": 5}", TFC_VAR ": rpc_layer must be a string, not a number", NULL);
	unavail("{\"rpc_layer\": [\"grpc\"]}", "rpc_layer must be a string, not an array", NULL);
	unavail("{\"session_master\": {\"host\": \"a\"}}",
	        "session_master must be a string, not an object", NULL);
	unavail("{\"session_master\": false}", "session_master must be a string, not a boolean", NULL);
}

/* Over 16 MiB is refused before parsing, naming the size. */
static void huge_input(void **state)
{
	size_t limit = (size_t)16 * 1024 * 1024;
	char *big = malloc(limit + 2);
	char want[128];
	muster_result *res;

	(void)state;
	assert_non_null(big);
	/* Exactly the limit: valid JSON padded with spaces is accepted. */
	memset(big, ' ', limit);
	memcpy(big, "{\"cluster\":{\"worker\":[\"a:1\"]}}", 30);
	big[limit] = '\0';
	res = tfc_resolve(NULL, big);
	assert_int_equal(muster_result_task_count(res, "worker"), 1);
	muster_result_free(res);

	big[limit] = ' ';
	big[limit + 1] = '\0';
	snprintf(want, sizeof(want), TFC_VAR " is %zu bytes; the limit is %zu bytes (16 MiB)",
	         limit + 1, limit);
	unavail(big, want, NULL);
	unsetenv(TFC_VAR);
	free(big);
}

/* cJSON stops at 1000 levels; so does Python's recursion.  Deeper input
 * gets its own message, and no stack overflow however deep. */
static void deep_nesting(void **state)
{
	size_t depth = 200000, i;
	char *deep = malloc(depth * 2 + 64);
	char *p;
	muster_result *res;

	(void)state;
	assert_non_null(deep);
	/* 999 arrays inside the top-level object: 1000 levels, accepted. */
	p = deep + sprintf(deep, "{\"x\":");
	for (i = 0; i < 999; i++)
		*p++ = '[';
	for (i = 0; i < 999; i++)
		*p++ = ']';
	strcpy(p, "}");
	res = tfc_resolve(NULL, deep);
	assert_int_equal(muster_result_job_count(res), 0);
	muster_result_free(res);

	/* One more level is refused, at the byte that goes too deep. */
	p = deep + sprintf(deep, "{\"x\":");
	for (i = 0; i < 1000; i++)
		*p++ = '[';
	for (i = 0; i < 1000; i++)
		*p++ = ']';
	strcpy(p, "}");
	unavail(deep, "is not valid JSON: nested deeper than 1000 levels at byte 1004", NULL);

	/* Very deep, unterminated, inside the cluster. */
	p = deep + sprintf(deep, "{\"cluster\":{\"worker\":");
	for (i = 0; i < depth; i++)
		*p++ = '[';
	*p = '\0';
	unavail(deep, "nested deeper than 1000 levels", NULL);

	/* Brackets inside strings do not count. */
	p = deep + sprintf(deep, "{\"cluster\":{\"w\":[\"h:1\"]},\"x\":\"");
	for (i = 0; i < 5000; i++)
		*p++ = '[';
	strcpy(p, "\"}");
	res = tfc_resolve(NULL, deep);
	assert_int_equal(muster_result_task_count(res, "w"), 1);
	muster_result_free(res);
	free(deep);
}

/* The `file` option's failures. */
static void file_errors(void **state)
{
	char conf[700], dir[600];
	const char *path;
	muster_ctx *ctx;
	muster_error err;

	(void)state;
	path = tfc_write("absent.json", "", 0);
	snprintf(dir, sizeof(dir), "%s", path);
	remove(dir);
	snprintf(conf, sizeof(conf), "file = \"%s\";", dir);
	ctx = tfc_ctx(conf);
	/* Like an unset variable: notfound. */
	assert_int_equal(tfc_resolve_fails(ctx, NULL, &err), MUSTER_ENOTFOUND);
	tfc_assert_contains(err.message, "notfound: ");
	tfc_assert_contains(err.message, "absent.json does not exist");
	/* Empty file. */
	tfc_write("absent.json", "", 0);
	assert_int_equal(tfc_resolve_fails(ctx, NULL, &err), MUSTER_EUNAVAIL);
	tfc_assert_contains(err.message, "absent.json is empty; expected JSON");
	/* A NUL byte inside: never read as the end of the text. */
	tfc_write("absent.json", "{}\0{\"cluster\": 1}", 17);
	assert_int_equal(tfc_resolve_fails(ctx, NULL, &err), MUSTER_EUNAVAIL);
	tfc_assert_contains(err.message, "absent.json is not valid JSON: a NUL byte after the value "
	                                 "at byte 2");
	/* Bad JSON names the file. */
	tfc_write("absent.json", "{\"cluster\": {\"worker\": [1]}}\n", 29);
	assert_int_equal(tfc_resolve_fails(ctx, NULL, &err), MUSTER_EUNAVAIL);
	tfc_assert_contains(err.message, "absent.json: cluster.worker[0] must be a string, not a number");
	muster_ctx_free(ctx);

	/* A directory is not a TF_CONFIG. */
	snprintf(dir, sizeof(dir), "%s", path);
	remove(dir);
	assert_int_equal(mkdir(dir, 0700), 0);
	ctx = tfc_ctx(conf);
	assert_int_equal(tfc_resolve_fails(ctx, NULL, &err), MUSTER_EUNAVAIL);
	tfc_assert_contains(err.message, "absent.json is not a regular file");
	muster_ctx_free(ctx);
	assert_int_equal(rmdir(dir), 0);

	/* A file over 16 MiB. */
	{
		FILE *f = fopen(dir, "wb");

		assert_non_null(f);
		assert_int_equal(fseek(f, 16L * 1024 * 1024, SEEK_SET), 0);
		assert_int_equal(fputc(' ', f), ' ');
		assert_int_equal(fclose(f), 0);
	}
	ctx = tfc_ctx(conf);
	assert_int_equal(tfc_resolve_fails(ctx, NULL, &err), MUSTER_EUNAVAIL);
	tfc_assert_contains(err.message, "absent.json is 16777217 bytes; the limit is 16777216 bytes");
	muster_ctx_free(ctx);
	remove(dir);
}

/* Bad options fail at open, naming the key (and file:line, from the core). */
static void config_errors(void **state)
{
	muster_error err;

	(void)state;
	assert_int_equal(tfc_ctx_fails("variable = 5;", &err), MUSTER_ECONFIG);
	tfc_assert_contains(err.message, "variable must be a string, not an integer");
	tfc_assert_contains(err.message, "tf_config(tfc)");
	tfc_assert_contains(err.message, ".conf:2");
	assert_int_equal(tfc_ctx_fails("variable = \"\";", &err), MUSTER_ECONFIG);
	tfc_assert_contains(err.message, "variable must not be empty");
	assert_int_equal(tfc_ctx_fails("variable = \"A=B\";", &err), MUSTER_ECONFIG);
	tfc_assert_contains(err.message, "without '='");
	assert_int_equal(tfc_ctx_fails("file = [\"a\"];", &err), MUSTER_ECONFIG);
	tfc_assert_contains(err.message, "file must be a string, not an array");
	assert_int_equal(tfc_ctx_fails("variable = \"X\"; file = \"/tmp/x.json\";", &err),
	                 MUSTER_ECONFIG);
	tfc_assert_contains(err.message, "file and variable exclude each other");
	assert_int_equal(tfc_ctx_fails("task_type = 3;", &err), MUSTER_ECONFIG);
	tfc_assert_contains(err.message, "task_type must be a string, not an integer");
	assert_int_equal(tfc_ctx_fails("task_type = \"\";", &err), MUSTER_ECONFIG);
	tfc_assert_contains(err.message, "task_type must not be empty");
	assert_int_equal(tfc_ctx_fails("task_id = \"1\";", &err), MUSTER_ECONFIG);
	tfc_assert_contains(err.message, "task_id must be an integer, not a string");
	assert_int_equal(tfc_ctx_fails("task_id = -1;", &err), MUSTER_ECONFIG);
	tfc_assert_contains(err.message, "task_id must be between 0 and 2147483647, not -1");
	assert_int_equal(tfc_ctx_fails("task_id = 4294967296L;", &err), MUSTER_ECONFIG);
	tfc_assert_contains(err.message, "not 4294967296");
	assert_int_equal(tfc_ctx_fails("rpc_layer = true;", &err), MUSTER_ECONFIG);
	tfc_assert_contains(err.message, "rpc_layer must be a string, not a boolean");
	assert_int_equal(tfc_ctx_fails("environment = 1.5;", &err), MUSTER_ECONFIG);
	tfc_assert_contains(err.message, "environment must be a string, not a float");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unset_is_notfound),
		cmocka_unit_test(empty_is_unavail),
		cmocka_unit_test(not_json),
		cmocka_unit_test(truncated_json),
		cmocka_unit_test(top_level_not_object),
		cmocka_unit_test(cluster_wrong_types),
		cmocka_unit_test(sparse_bad_keys),
		cmocka_unit_test(sparse_duplicate_index),
		cmocka_unit_test(task_wrong_types),
		cmocka_unit_test(task_index_errors),
		cmocka_unit_test(text_that_names_nothing),
		cmocka_unit_test(own_task_in_its_job),
		cmocka_unit_test(bad_addresses),
		cmocka_unit_test(overrides_skip_bad_fields),
		cmocka_unit_test(top_level_strings_wrong_types),
		cmocka_unit_test(huge_input),
		cmocka_unit_test(deep_nesting),
		cmocka_unit_test(file_errors),
		cmocka_unit_test(config_errors),
	};

	return run_tap_tests(tests, tfc_group_setup, tfc_group_teardown);
}
