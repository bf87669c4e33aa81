/* Internal pieces tested directly: the JSON string writer's escaping, the
 * builder's checks, the arena and the suggestions. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "../../core/model/arena.h"
#include "../../core/model/builder.h"
#include "../../core/emit/jsonw.h"
#include "../../core/config/suggest.h"

static void expect_escaped(const char *in, const char *want)
{
	struct jsonw w;
	jsonw_init(&w);
	jsonw_string(&w, in);
	char *out = jsonw_finish(&w);
	assert_string_equal(out, want);
	free(out);
}

static void json_strings_escape_like_go(void **state)
{
	expect_escaped("plain host:2222", "\"plain host:2222\"");
	expect_escaped("a\"b\\c", "\"a\\\"b\\\\c\"");
	expect_escaped("\n\r\t\x01\x1f", "\"\\n\\r\\t\\u0001\\u001f\"");
	expect_escaped("<a&b>", "\"\\u003ca\\u0026b\\u003e\"");
	expect_escaped("caf\xc3\xa9 \xf0\x9f\x9a\x80", "\"caf\xc3\xa9 \xf0\x9f\x9a\x80\"");
	expect_escaped("\xe2\x80\xa8\xe2\x80\xa9", "\"\\u2028\\u2029\"");
	/* Invalid UTF-8: a stray continuation, an overlong form, a surrogate,
	 * a truncated sequence: each bad byte becomes U+FFFD. */
	expect_escaped("\x80", "\"\\ufffd\"");
	expect_escaped("\xc0\xaf", "\"\\ufffd\\ufffd\"");
	expect_escaped("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	expect_escaped("\xe2\x80", "\"\\ufffd\\ufffd\"");
}

static void builder_rejects_duplicates_and_orphan_accelerators(void **state)
{
	struct builder b;
	assert_int_equal(builder_init(&b), 0);
	assert_int_equal(builder_task(&b, "w", 1, "a"), 0);
	assert_int_equal(builder_task(&b, "w", 0, "b"), 0);
	assert_int_equal(builder_task(&b, "w", 1, "c"), 0);
	assert_null(builder_finish(&b));
	assert_string_equal(b.reason, "task w:1 is given twice ('a' and 'c')");
	builder_discard(&b);

	assert_int_equal(builder_init(&b), 0);
	assert_int_equal(builder_task(&b, "w", -1, "a"), 0);
	assert_int_equal(builder_accel(&b, "w", 5, "GPU", 1), 0);
	assert_null(builder_finish(&b));
	assert_string_equal(b.reason, "accelerators given for w:5, which is not a task");
	builder_discard(&b);

	assert_int_equal(builder_init(&b), 0);
	assert_int_equal(builder_task(&b, "", 0, "a"), -1);
	assert_string_equal(b.reason, "a job name must be a non-empty string");
	assert_int_equal(builder_task(&b, "w", 0, NULL), -1);
	assert_int_equal(builder_accel(&b, "w", 0, "GPU", -1), -1);
	assert_int_equal(builder_accel(&b, "w", 0, "", 1), -1);
	builder_discard(&b);
}

static void builder_appends_and_sums_accelerators(void **state)
{
	struct builder b;
	assert_int_equal(builder_init(&b), 0);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(builder_task(&b, "w", -1, "h:1"), 0);
	assert_int_equal(builder_accel(&b, "w", 7, "GPU", 2), 0);
	assert_int_equal(builder_accel(&b, "w", 7, "GPU", 3), 0);
	struct muster_result *r = builder_finish(&b);
	assert_non_null(r);
	assert_int_equal(muster_result_task_count(r, "w"), 1000);
	assert_true(muster_result_job_is_dense(r, "w"));
	const char *kind;
	long count;
	assert_int_equal(muster_result_accelerator_at(r, "w", 7, 0, &kind, &count), 0);
	assert_int_equal(count, 5);
	muster_result_free(r);
	builder_discard(&b);
}

/* Ids count as accelerators; a repeat keeps them only when both parts
 * have them; a task's ids come from one kind; the own task reads its own. */
static void builder_keeps_accelerator_ids(void **state)
{
	struct builder b;
	const int two[] = {4, 5}, one[] = {7}, bad[] = {-1};
	assert_int_equal(builder_init(&b), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(builder_task(&b, "w", -1, "h:1"), 0);
	assert_int_equal(builder_accel_ids(&b, "w", 0, "GPU", two, 2), 0);
	assert_int_equal(builder_accel_ids(&b, "w", 0, "GPU", one, 1), 0);
	assert_int_equal(builder_accel_ids(&b, "w", 1, "GPU", two, 2), 0);
	assert_int_equal(builder_accel(&b, "w", 1, "GPU", 1), 0);
	assert_int_equal(builder_accel_ids(&b, "w", 2, "GPU", bad, 1), -1);
	assert_string_equal(b.reason, "accelerator ids of w:2: negative id -1");
	assert_int_equal(builder_set_task(&b, "w", 0), 0);
	struct muster_result *r = builder_finish(&b);
	assert_non_null(r);
	const char *kind = NULL;
	const int *ids = NULL;
	size_t n = 0;
	long count;
	assert_int_equal(muster_result_accelerator_ids(r, NULL, -1, &kind, &ids, &n), 0);
	assert_string_equal(kind, "GPU");
	assert_int_equal(n, 3);
	assert_int_equal(ids[0], 4);
	assert_int_equal(ids[2], 7);
	assert_int_equal(muster_result_accelerator_ids(r, "w", 1, &kind, &ids, &n), MUSTER_ENOENT);
	assert_int_equal(muster_result_accelerator_at(r, "w", 1, 0, &kind, &count), 0);
	assert_int_equal(count, 3);
	assert_int_equal(muster_result_accelerator_ids(r, "x", 0, &kind, &ids, &n), MUSTER_ENOENT);
	muster_result_free(r);

	assert_int_equal(builder_init(&b), 0);
	assert_int_equal(builder_task(&b, "w", 0, "h:1"), 0);
	assert_int_equal(builder_accel_ids(&b, "w", 0, "GPU", one, 1), 0);
	assert_int_equal(builder_accel_ids(&b, "w", 0, "TPU", two, 2), 0);
	assert_null(builder_finish(&b));
	assert_string_equal(b.reason, "accelerator ids of w:0 are given for both GPU and TPU");
	builder_discard(&b);
}

static void arena_aligns_and_grows(void **state)
{
	struct arena a;
	arena_init(&a);
	void *small = arena_alloc(&a, 3);
	void *big = arena_alloc(&a, 3 << 20);
	assert_non_null(small);
	assert_non_null(big);
	assert_int_equal((uintptr_t)big % _Alignof(max_align_t), 0);
	assert_true(arena_footprint(&a) >= (3u << 20));
	assert_string_equal(arena_strndup(&a, "abcdef", 3), "abc");
	assert_null(arena_alloc(&a, SIZE_MAX - 8));
	arena_release(&a);
}

/* "Did you mean": one edit in a short word, two in a longer one, a swap
 * counting one; nothing when no candidate is that near. */
static void suggestions_are_near_typos_only(void **state)
{
	static const char *const keys[] = {"plugin", "name", "config", "on_success", "on_unavail"};
	assert_string_equal(suggest_nearest("on_sucess", keys, 5), "on_success");
	assert_string_equal(suggest_nearest("on_unavial", keys, 5), "on_unavail");
	assert_string_equal(suggest_nearest("nme", keys, 5), "name");
	assert_string_equal(suggest_nearest("cnofgi", keys, 5), "config");
	assert_null(suggest_nearest("colour", keys, 5));
	assert_null(suggest_nearest("nm", keys, 5)); /* two edits in a short word */
	assert_null(suggest_nearest("name", keys, 5)); /* itself is no suggestion */
	char longword[200];
	memset(longword, 'a', sizeof(longword) - 1);
	longword[sizeof(longword) - 1] = '\0';
	assert_null(suggest_nearest(longword, keys, 5));
	assert_null(suggest_nearest("x", keys, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_strings_escape_like_go),
		cmocka_unit_test(builder_rejects_duplicates_and_orphan_accelerators),
		cmocka_unit_test(builder_appends_and_sums_accelerators),
		cmocka_unit_test(builder_keeps_accelerator_ids),
		cmocka_unit_test(arena_aligns_and_grows),
		cmocka_unit_test(suggestions_are_near_typos_only),
	};
	return run_tap_tests(tests, NULL, NULL);
}
