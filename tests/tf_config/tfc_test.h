/*
 * Helpers shared by the tf_config tests: a scratch directory under /tmp,
 * contexts opened from generated configs, and short assertions over the
 * public API.  Every test goes through libmuster and the real plugin.
 */
#ifndef MUSTER_TESTS_TFC_TEST_H
#define MUSTER_TESTS_TFC_TEST_H

#include "../lib/test.h"

#include <muster/muster.h>

/* The variable the default test entry reads (never TF_CONFIG itself). */
#define TFC_VAR "MUSTER_TEST_TF_CONFIG"

/* Group setup/teardown: the scratch directory. */
int tfc_group_setup(void **state);
int tfc_group_teardown(void **state);

/* A file in the scratch directory with these bytes; returns its path
 * (static storage per call: copy it if you need two). */
const char *tfc_write(const char *name, const char *data, size_t len);

/* A context from a config whose tf_config entry has this `config` group body
 * (e.g. "variable = \"X\"; task_id = 1;").  NULL body: the default test
 * entry reading TFC_VAR. */
muster_ctx *tfc_ctx(const char *group_body);
/* The same config, expected to fail to open: returns the code, err filled. */
int tfc_ctx_fails(const char *group_body, muster_error *err);

/* Set TFC_VAR to `json` and resolve with `ctx` (a default one when NULL). */
muster_result *tfc_resolve(muster_ctx *ctx, const char *json);
/* The same, expected to fail: returns the code; err->message holds the
 * reason, which the test checks with tfc_assert_contains. */
int tfc_resolve_fails(muster_ctx *ctx, const char *json, muster_error *err);

void tfc_assert_contains(const char *haystack, const char *needle);

/* Asserts a job's tasks, in order: TFC_TASKS(res, "worker", {0, "w0:2222"}, ...). */
struct tfc_task {
	long index;
	const char *address;
};
void tfc_assert_tasks(const muster_result *res, const char *job, const struct tfc_task *want,
                      size_t n);
#define TFC_TASKS(res, job, ...)                                                            \
	do {                                                                                 \
		const struct tfc_task tfc_want_[] = { __VA_ARGS__ };                        \
		tfc_assert_tasks((res), (job), tfc_want_,                                    \
		                 sizeof(tfc_want_) / sizeof(tfc_want_[0]));                  \
	} while (0)

/* muster_result_master_url, expected to succeed, compared with `want`. */
void tfc_assert_master(const muster_result *res, const char *type, long id, const char *rpc,
                       const char *want);

/* A fixture's contents from tests/tf_config/fixtures (caller frees). */
char *tfc_fixture(const char *name);
/* The fixture's path in the source tree (static storage). */
const char *tfc_fixture_path(const char *name);

#endif
