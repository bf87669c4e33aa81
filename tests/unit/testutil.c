#include <config.h>

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];
static char paths[16][512];
static int npaths;

static const char *put(const char *name, const char *text)
{
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/muster-test-XXXXXX");
		assert_non_null(mkdtemp(dir));
	}
	assert_true(npaths < 16);
	char *path = paths[npaths++];
	snprintf(path, 512, "%s/%s", dir, name);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	assert_int_equal(system(cmd), 0);
	*slash = '/';
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

const char *write_config(const char *text)
{
	testutil_cleanup();
	return put("muster.conf", text);
}

const char *write_file(const char *relative, const char *text)
{
	return put(relative, text);
}

void testutil_cleanup(void)
{
	if (dir[0]) {
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	dir[0] = '\0';
	npaths = 0;
}

void capture_log(int level, const char *message, void *data)
{
	struct captured_log *log = data;
	size_t n = strlen(log->text);
	snprintf(log->text + n, sizeof(log->text) - n, "%d %s\n", level, message);
}

muster_ctx *open_text(const char *text, struct captured_log *log)
{
	muster_options o = MUSTER_OPTIONS_INIT;
	muster_error err;
	muster_ctx *ctx = NULL;
	if (log) {
		log->text[0] = '\0';
		o.log = capture_log;
		o.log_data = log;
		o.log_level = MUSTER_LOG_DEBUG;
	}
	int rc = muster_ctx_open(&ctx, write_config(text), &o, &err);
	if (rc != 0)
		fail_msg("muster_ctx_open: %s", err.message);
	return ctx;
}

int open_text_fails(const char *text, muster_error *err)
{
	muster_ctx *ctx = NULL;
	int rc = muster_ctx_open(&ctx, write_config(text), NULL, err);
	assert_null(ctx);
	assert_int_not_equal(rc, 0);
	assert_int_equal(err->code, rc);
	return rc;
}

muster_result *resolve_ok(muster_ctx *ctx)
{
	muster_result *r = NULL;
	muster_error err;
	if (muster_resolve(&r, ctx, &err) != 0)
		fail_msg("muster_resolve: %s", err.message);
	return r;
}

char *json_of(const muster_result *r)
{
	char *s = NULL;
	assert_int_equal(muster_result_to_json(&s, r, NULL), 0);
	return s;
}

char *master_of(const muster_result *r, const char *type, long id, const char *rpc)
{
	char *s = NULL;
	muster_error err;
	int rc = muster_result_master_url(&s, r, type, id, rpc, &err);
	if (rc != 0) {
		s = malloc(32);
		snprintf(s, 32, "error %d", rc);
	}
	return s;
}
