/*
 * Plugin ABI 1.7 seen through the public API, with tests/abi/placed.c:
 * placement, node order and job id reach the result (a merge keeps its
 * first contributor's); plugin.h's helpers leave them out on a 1.6 host;
 * a refused value fails the answer with the reason; a MUSTER_PLUGIN_DETECTS
 * entry stands aside under MUSTER_NO_DETECT; muster_resolve_explain()
 * records every entry's answer and the noted inputs, secrets redacted and
 * bounded; a plugin built against ABI 1.0 still loads and answers.
 * ABI 1.8: members reported pending reach a successful result (a merge
 * keeps them, at their tasks' new indices) and, for a tryagain entry, the
 * explain record's partial view with the tasks that were ready; their
 * text is made printable and their number bounded; an ABI 1.7 host keeps
 * none and fails nothing.
 *
 * Needs MUSTER_TEST_BUILDDIR (set by `make check`).
 */
#include <config.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/test.h"

#include <muster/muster.h>
#include <muster/plugin.h>

#define FALLBACK \
	"{ plugin = \"static\"; config = { jobs = { worker = [\"fallback.invalid:2222\"]; }; }; }"

static char tmpdir[PATH_MAX], abi_libs[PATH_MAX];
static int conf_seq;

/* A context over `chain` (the text inside "chain = ( ... );"). */
static muster_ctx *open_chain(const char *chain)
{
	char path[PATH_MAX];
	muster_error err = { 0, "" };
	muster_ctx *ctx = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/conf-%d.conf", tmpdir, ++conf_seq);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "strict = true;\nplugin_path = \"%s\";\nchain = ( %s );\n", abi_libs, chain);
	assert_int_equal(fclose(f), 0);
	if (muster_ctx_open(&ctx, path, NULL, &err) != 0)
		print_error("muster_ctx_open: %s\n", err.message);
	assert_non_null(ctx);
	return ctx;
}

static muster_result *resolve_ok(muster_ctx *ctx)
{
	muster_error err = { 0, "" };
	muster_result *r = NULL;

	if (muster_resolve(&r, ctx, &err) != 0)
		print_error("muster_resolve: %s\n", err.message);
	assert_non_null(r);
	return r;
}

/* The placed entry's answer must fail, as unavail naming `why`. */
static void answer_fails(const char *mode, const char *why)
{
	char chain[256];
	muster_error err = { 0, "" };
	muster_result *r = NULL;
	muster_ctx *ctx;

	snprintf(chain, sizeof(chain), "{ plugin = \"placed\"; config = { mode = \"%s\"; }; }",
	         mode);
	ctx = open_chain(chain);
	assert_int_equal(muster_resolve(&r, ctx, &err), MUSTER_EUNAVAIL);
	assert_null(r);
	if (!strstr(err.message, why))
		print_error("wanted \"%s\" in \"%s\"\n", why, err.message);
	assert_non_null(strstr(err.message, why));
	muster_ctx_free(ctx);
}

static void test_scheduler_answer(void **state)
{
	muster_ctx *ctx = open_chain("{ plugin = \"placed\"; }");
	muster_result *r = resolve_ok(ctx);

	(void)state;
	assert_int_equal(muster_result_placement(r), MUSTER_PLACEMENT_PROCESSES);
	assert_string_equal(muster_result_node_order(r, 0), "node2");
	assert_string_equal(muster_result_node_order(r, 1), "node1");
	assert_null(muster_result_node_order(r, 2));
	assert_string_equal(muster_result_job_id(r), "4242");
	assert_int_equal(muster_result_task_count(r, "worker"), 4);
	muster_result_free(r);
	muster_ctx_free(ctx);
}

/* A backend that says nothing new: nodes, no order, no id. */
static void test_defaults(void **state)
{
	muster_ctx *ctx = open_chain(FALLBACK);
	muster_result *r = resolve_ok(ctx);

	(void)state;
	assert_int_equal(muster_result_placement(r), MUSTER_PLACEMENT_NODES);
	assert_null(muster_result_node_order(r, 0));
	assert_null(muster_result_job_id(r));
	muster_result_free(r);
	muster_ctx_free(ctx);
}

/* plugin.h's helpers on a host of ABI 1.6: nothing applies, nothing fails. */
static void test_old_host(void **state)
{
	muster_ctx *ctx = open_chain("{ plugin = \"placed\"; config = { mode = \"old_host\"; }; }");
	muster_result *r = resolve_ok(ctx);

	(void)state;
	assert_int_equal(muster_result_placement(r), MUSTER_PLACEMENT_NODES);
	assert_null(muster_result_node_order(r, 0));
	assert_null(muster_result_job_id(r));
	assert_int_equal(muster_result_task_count(r, "worker"), 4);
	muster_result_free(r);
	muster_ctx_free(ctx);
}

static void test_refusals(void **state)
{
	(void)state;
	answer_fails("bad_placement", "set_placement: unknown placement");
	answer_fails("bad_host", "node order: ");
	answer_fails("bad_host", "no such host!");
	answer_fails("empty_id", "set_job_id: an empty id");
}

/* A merge keeps its first contributor's placement, order and id. */
static void test_merge_keeps_first(void **state)
{
	muster_ctx *ctx;
	muster_result *r;

	(void)state;
	ctx = open_chain("{ plugin = \"placed\"; on_success = \"merge\"; }, " FALLBACK);
	r = resolve_ok(ctx);
	assert_string_equal(muster_result_source(r), "placed+static");
	assert_int_equal(muster_result_placement(r), MUSTER_PLACEMENT_PROCESSES);
	assert_string_equal(muster_result_node_order(r, 0), "node2");
	assert_string_equal(muster_result_job_id(r), "4242");
	muster_result_free(r);
	muster_ctx_free(ctx);

	ctx = open_chain("{ plugin = \"static\"; on_success = \"merge\"; config = { jobs = { "
	                 "ps = [\"ps.invalid:1\"]; }; }; }, { plugin = \"placed\"; }");
	r = resolve_ok(ctx);
	assert_string_equal(muster_result_source(r), "static+placed");
	assert_int_equal(muster_result_placement(r), MUSTER_PLACEMENT_NODES);
	assert_null(muster_result_node_order(r, 0));
	assert_null(muster_result_job_id(r));
	muster_result_free(r);
	muster_ctx_free(ctx);
}

static void test_no_detect(void **state)
{
	static const char *const on[] = { "1", "yes" }, *const off[] = { "0", "" };
	muster_ctx *ctx = open_chain("{ plugin = \"placed\"; }, " FALLBACK);
	muster_result *r;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		setenv("MUSTER_NO_DETECT", on[i], 1);
		r = resolve_ok(ctx);
		assert_string_equal(muster_result_source(r), "static");
		muster_result_free(r);
		setenv("MUSTER_NO_DETECT", off[i], 1);
		r = resolve_ok(ctx);
		assert_string_equal(muster_result_source(r), "placed");
		muster_result_free(r);
	}
	unsetenv("MUSTER_NO_DETECT");
	muster_ctx_free(ctx);
}

static void entry_at(const muster_explain *x, size_t i, muster_explain_entry *e)
{
	muster_explain_entry init = MUSTER_EXPLAIN_ENTRY_INIT;

	*e = init;
	assert_int_equal(muster_explain_entry_at(x, i, e), 0);
}

static void input_is(const muster_explain *x, size_t i, size_t j, const char *name,
                     const char *value)
{
	const char *n, *v;

	assert_int_equal(muster_explain_input_at(x, i, j, &n, &v), 0);
	assert_string_equal(n, name);
	if (value)
		assert_string_equal(v, value);
	else
		assert_null(v);
}

static void test_explain(void **state)
{
	muster_ctx *ctx = open_chain("{ plugin = \"placed\"; name = \"off\"; }, "
	                             "{ plugin = \"placed\"; }, " FALLBACK);
	muster_error err = { 0, "" };
	muster_explain *x = NULL;
	muster_explain_entry e;
	muster_result *r = NULL;

	(void)state;
	/* Both `placed` entries stand aside under MUSTER_NO_DETECT; static
	 * answers.  Without it, the first answers and the chain ends there. */
	setenv("MUSTER_NO_DETECT", "1", 1);
	assert_int_equal(muster_resolve_explain(&r, &x, ctx, &err), 0);
	unsetenv("MUSTER_NO_DETECT");
	assert_string_equal(muster_result_source(r), "static");
	assert_int_equal(muster_explain_entry_count(x), 3);
	entry_at(x, 0, &e);
	assert_string_equal(e.instance, "off");
	assert_string_equal(e.plugin, "placed");
	assert_int_equal(e.code, MUSTER_ENOTFOUND);
	assert_string_equal(e.reason, "MUSTER_NO_DETECT is set");
	assert_int_equal(e.used, 0);
	assert_int_equal(e.inputs, 0);
	entry_at(x, 2, &e);
	assert_string_equal(e.instance, "static");
	assert_int_equal(e.code, MUSTER_OK);
	assert_null(e.reason);
	assert_int_equal(e.used, 1);
	muster_explain_free(x);
	muster_result_free(r);

	x = NULL;
	assert_int_equal(muster_resolve_explain(&r, &x, ctx, &err), 0);
	assert_string_equal(muster_result_source(r), "off");
	/* The chain ended there; the other detector was asked after it, only
	 * to show that it matched too, and static (no detector) was not. */
	assert_int_equal(muster_explain_entry_count(x), 2);
	entry_at(x, 1, &e);
	assert_string_equal(e.instance, "placed");
	assert_int_equal(e.code, MUSTER_OK);
	assert_int_equal(e.used, 0);
	assert_int_equal(e.after, 1);
	entry_at(x, 0, &e);
	assert_int_equal(e.code, MUSTER_OK);
	assert_int_equal(e.used, 1);
	assert_int_equal(e.after, 0);
	assert_int_equal(e.inputs, 4);
	assert_int_equal(e.dropped, 0);
	input_is(x, 0, 0, "PLACED_NODELIST", "node[1-2]");
	input_is(x, 0, 1, "PLACED_API_TOKEN", "(redacted)");
	input_is(x, 0, 2, "https_proxy", "http://(redacted)@proxy.invalid:3128/x");
	input_is(x, 0, 3, "PLACED_UNSET", NULL);
	assert_int_equal(muster_explain_input_at(x, 0, 4, NULL, NULL), MUSTER_ENOENT);
	assert_int_equal(muster_explain_entry_at(x, 2, &e), MUSTER_ENOENT);
	muster_explain_free(x);
	muster_result_free(r);
	muster_ctx_free(ctx);
}

/* A failed chain is explained too; a flood of inputs is cut at the limit. */
static void test_explain_failure(void **state)
{
	muster_ctx *ctx = open_chain("{ plugin = \"placed\"; config = { mode = \"flood\"; }; "
	                             "on_success = \"continue\"; }, "
	                             "{ plugin = \"placed\"; name = \"bad\"; "
	                             "config = { mode = \"empty_id\"; }; }");
	muster_error err = { 0, "" };
	muster_explain *x = NULL;
	muster_explain_entry e;
	muster_result *r = NULL;

	(void)state;
	assert_int_equal(muster_resolve_explain(&r, &x, ctx, &err), MUSTER_EUNAVAIL);
	assert_null(r);
	assert_non_null(x);
	assert_int_equal(muster_explain_entry_count(x), 2);
	entry_at(x, 0, &e);
	assert_int_equal(e.code, MUSTER_OK);
	assert_int_equal(e.used, 0); /* on_success = continue: dropped */
	assert_int_equal(e.inputs, 64);
	assert_int_equal(e.dropped, 36);
	input_is(x, 0, 63, "PLACED_VAR_63", "v");
	entry_at(x, 1, &e);
	assert_int_equal(e.code, MUSTER_EUNAVAIL);
	assert_non_null(strstr(e.reason, "set_job_id: an empty id"));
	muster_explain_free(x);

	/* A caller's struct too small for the fields is refused, not overrun. */
	assert_int_equal(muster_resolve_explain(&r, &x, ctx, &err), MUSTER_EUNAVAIL);
	e.size = offsetof(muster_explain_entry, inputs);
	assert_int_equal(muster_explain_entry_at(x, 0, &e), MUSTER_EINVAL);
	muster_explain_free(x);
	assert_int_equal(muster_resolve_explain(&r, NULL, ctx, &err), MUSTER_EINVAL);
	muster_ctx_free(ctx);
}

/* A plugin built against ABI 1.0 (a descriptor without watch) loads and
 * answers: nodes, no order, no id. */
static void test_old_minor_plugin(void **state)
{
	muster_ctx *ctx = open_chain("{ plugin = \"old_minor\"; }, " FALLBACK);
	muster_entry_info info;
	muster_result *r;

	(void)state;
	memset(&info, 0, sizeof(info));
	assert_int_equal(muster_ctx_entry_info(ctx, 0, &info), 0);
	assert_int_equal(info.state, MUSTER_PLUGIN_LOADED);
	assert_int_equal(info.abi_minor, 0);
	r = resolve_ok(ctx);
	assert_string_equal(muster_result_source(r), "old_minor");
	assert_string_equal(muster_result_address(r, "worker", 0), "good.invalid:1");
	assert_int_equal(muster_result_placement(r), MUSTER_PLACEMENT_NODES);
	muster_result_free(r);
	muster_ctx_free(ctx);
}

static void pending_is(const muster_result *r, size_t i, const char *job, long index,
                       const char *name, const char *why)
{
	const char *j, *n, *w;
	long k;

	assert_int_equal(muster_result_pending_at(r, i, &j, &k, &n, &w), 0);
	assert_string_equal(j, job);
	assert_int_equal(k, index);
	if (name)
		assert_string_equal(n, name);
	else
		assert_null(n);
	if (why)
		assert_string_equal(w, why);
	else
		assert_null(w);
}

/* A tryagain entry's partial view: only in the explain record. */
static void test_partial(void **state)
{
	muster_ctx *ctx = open_chain("{ plugin = \"placed\"; config = { mode = \"not_ready\"; }; }");
	muster_error err = { 0, "" };
	muster_explain *x = NULL;
	muster_explain_entry e;
	muster_result *r = NULL;
	const muster_result *p;

	(void)state;
	assert_int_equal(muster_resolve_explain(&r, &x, ctx, &err), MUSTER_ETRYAGAIN);
	assert_null(r);
	assert_non_null(strstr(err.message, "2/4 ready"));
	entry_at(x, 0, &e);
	assert_int_equal(e.code, MUSTER_ETRYAGAIN);
	assert_string_equal(e.reason, "2/4 ready");
	p = muster_explain_partial(x, 0);
	assert_non_null(p);
	assert_string_equal(muster_result_source(p), "placed");
	assert_int_equal(muster_result_task_count(p, "worker"), 2);
	assert_string_equal(muster_result_address(p, "worker", 1), "node1:8889");
	assert_string_equal(muster_result_task_type(p), "worker");
	assert_int_equal(muster_result_task_index(p), 1);
	assert_int_equal(muster_result_pending_count(p), 3);
	pending_is(p, 0, "worker", 2, "pod-2", "Pending");
	pending_is(p, 1, "worker", 3, "pod?[31m-3", "Running but has no pod IP yet");
	pending_is(p, 2, "ps", -1, NULL, NULL);
	assert_int_equal(muster_result_pending_at(p, 3, NULL, NULL, NULL, NULL), MUSTER_ENOENT);
	assert_null(muster_explain_partial(x, 1));
	muster_explain_free(x);
	muster_ctx_free(ctx);

	/* Bounded: the members past the limit are counted. */
	ctx = open_chain("{ plugin = \"placed\"; config = { mode = \"pending_flood\"; }; }");
	x = NULL;
	assert_int_equal(muster_resolve_explain(&r, &x, ctx, &err), MUSTER_ETRYAGAIN);
	p = muster_explain_partial(x, 0);
	assert_non_null(p);
	assert_int_equal(muster_result_pending_count(p), 65536);
	assert_int_equal(muster_result_pending_dropped(p), 70000 - 65536);
	assert_int_equal(muster_result_task_count(p, "worker"), 0);
	muster_explain_free(x);
	muster_ctx_free(ctx);
}

/* A success carries its pending members; a merge keeps them where their
 * job's tasks went; a 1.7 host keeps none. */
static void test_pending_result(void **state)
{
	muster_ctx *ctx = open_chain("{ plugin = \"placed\"; config = { mode = \"pending\"; }; }");
	muster_result *r = resolve_ok(ctx);

	(void)state;
	assert_int_equal(muster_result_task_count(r, "worker"), 4);
	assert_int_equal(muster_result_pending_count(r), 1);
	assert_int_equal(muster_result_pending_dropped(r), 0);
	pending_is(r, 0, "worker", 4, "pod-4", "Pending");
	muster_result_free(r);
	muster_ctx_free(ctx);

	ctx = open_chain("{ plugin = \"placed\"; name = \"a\"; on_success = \"merge\"; "
	                 "config = { mode = \"pending\"; }; }, "
	                 "{ plugin = \"placed\"; name = \"b\"; config = { mode = \"pending\"; }; }");
	r = resolve_ok(ctx);
	assert_string_equal(muster_result_source(r), "a+b");
	assert_int_equal(muster_result_task_count(r, "worker"), 8);
	assert_int_equal(muster_result_pending_count(r), 2);
	pending_is(r, 0, "worker", 4, "pod-4", "Pending");
	pending_is(r, 1, "worker", 8, "pod-4", "Pending"); /* b's tasks follow a's four */
	muster_result_free(r);
	muster_ctx_free(ctx);

	ctx = open_chain("{ plugin = \"placed\"; config = { mode = \"pending_old_host\"; }; }");
	r = resolve_ok(ctx);
	assert_int_equal(muster_result_task_count(r, "worker"), 4);
	assert_int_equal(muster_result_pending_count(r), 0);
	muster_result_free(r);
	muster_ctx_free(ctx);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	const char *builddir = getenv("MUSTER_TEST_BUILDDIR"), *tmp = getenv("TMPDIR");
	char buf[PATH_MAX];

	(void)state;
	if (!builddir) {
		fprintf(stderr, "MUSTER_TEST_BUILDDIR is not set: run me from make check\n");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s/tests/abi/.libs", builddir);
	if (!realpath(buf, abi_libs)) {
		fprintf(stderr, "%s: %s\n", buf, strerror(errno));
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s/muster-services.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(buf) || !realpath(buf, tmpdir))
		return -1;
	setenv("MUSTER_PLUGIN_PATH", tmpdir, 1);
	unsetenv("MUSTER_NO_DETECT");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (tmpdir[0])
		nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scheduler_answer),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_old_host),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_merge_keeps_first),
		cmocka_unit_test(test_no_detect),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_explain_failure),
		cmocka_unit_test(test_old_minor_plugin),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_pending_result),
	};
	return run_tap_tests(tests, setup, teardown);
}
