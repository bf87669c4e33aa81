#include <config.h>

#include "tfc_test.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch[64];
static unsigned config_serial;

int tfc_group_setup(void **state)
{
	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/muster-tfc-XXXXXX");
	if (mkdtemp(scratch) == NULL) {
		fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
		return -1;
	}
	unsetenv(TFC_VAR);
	unsetenv("TF_CONFIG");
	return 0;
}

int tfc_group_teardown(void **state)
{
	DIR *d;
	struct dirent *de;
	char path[512];

	(void)state;
	unsetenv(TFC_VAR);
	d = opendir(scratch);
	if (d != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", scratch, de->d_name);
			if (unlink(path) != 0)
				rmdir(path);
		}
		closedir(d);
	}
	rmdir(scratch);
	return 0;
}

const char *tfc_write(const char *name, const char *data, size_t len)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	if (len > 0)
		assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

static const char *write_config(const char *group_body)
{
	char name[64], *text;
	const char *body = group_body ? group_body : "variable = \"" TFC_VAR "\";";
	const char *path;
	size_t n = strlen(body) + 256;

	text = malloc(n);
	assert_non_null(text);
	snprintf(text, n,
	         "chain = ( { plugin = \"tf_config\"; name = \"tfc\";\n"
	         "            config = { %s }; } );\n",
	         body);
	snprintf(name, sizeof(name), "muster-%u.conf", ++config_serial);
	path = tfc_write(name, text, strlen(text));
	free(text);
	return path;
}

muster_ctx *tfc_ctx(const char *group_body)
{
	muster_ctx *ctx = NULL;
	muster_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = muster_ctx_open(&ctx, write_config(group_body), NULL, &err);
	if (rc != 0)
		fail_msg("muster_ctx_open: %s (%s)", muster_strerror(rc), err.message);
	assert_non_null(ctx);
	return ctx;
}

int tfc_ctx_fails(const char *group_body, muster_error *err)
{
	muster_ctx *ctx = NULL;
	int rc;

	memset(err, 0, sizeof(*err));
	rc = muster_ctx_open(&ctx, write_config(group_body), NULL, err);
	if (rc == 0) {
		muster_ctx_free(ctx);
		fail_msg("muster_ctx_open succeeded with config { %s }", group_body);
	}
	assert_null(ctx);
	return rc;
}

muster_result *tfc_resolve(muster_ctx *ctx, const char *json)
{
	muster_ctx *own = NULL;
	muster_result *res = NULL;
	muster_error err;
	int rc;

	if (ctx == NULL)
		ctx = own = tfc_ctx(NULL);
	if (json != NULL)
		assert_int_equal(setenv(TFC_VAR, json, 1), 0);
	memset(&err, 0, sizeof(err));
	rc = muster_resolve(&res, ctx, &err);
	muster_ctx_free(own);
	if (rc != 0)
		fail_msg("muster_resolve: %s (%s)", muster_strerror(rc), err.message);
	assert_non_null(res);
	return res;
}

int tfc_resolve_fails(muster_ctx *ctx, const char *json, muster_error *err)
{
	muster_ctx *own = NULL;
	muster_result *res = NULL;
	int rc;

	if (ctx == NULL)
		ctx = own = tfc_ctx(NULL);
	if (json != NULL)
		assert_int_equal(setenv(TFC_VAR, json, 1), 0);
	memset(err, 0, sizeof(*err));
	rc = muster_resolve(&res, ctx, err);
	muster_ctx_free(own);
	if (rc == 0) {
		muster_result_free(res);
		fail_msg("muster_resolve succeeded for %.200s", json ? json : "(unchanged input)");
	}
	assert_null(res);
	assert_int_equal(err->code, rc);
	/* Every failure names the entry that gave it. */
	tfc_assert_contains(err->message, "tf_config(tfc)");
	return rc;
}

void tfc_assert_contains(const char *haystack, const char *needle)
{
	if (haystack == NULL || strstr(haystack, needle) == NULL)
		fail_msg("expected \"%s\" in \"%s\"", needle, haystack ? haystack : "(null)");
}

void tfc_assert_tasks(const muster_result *res, const char *job, const struct tfc_task *want,
                      size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		long index = -2;
		const char *address = NULL;

		assert_int_equal(muster_result_task_at(res, job, i, &index, &address), 0);
		assert_int_equal(index, want[i].index);
		assert_string_equal(address, want[i].address);
		assert_string_equal(muster_result_address(res, job, want[i].index), want[i].address);
	}
	assert_int_equal(muster_result_task_count(res, job), n);
}

void tfc_assert_master(const muster_result *res, const char *type, long id, const char *rpc,
                       const char *want)
{
	char *got = NULL;
	muster_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = muster_result_master_url(&got, res, type, id, rpc, &err);
	if (rc != 0)
		fail_msg("muster_result_master_url(%s, %ld, %s): %s (%s)", type ? type : "NULL", id,
		         rpc ? rpc : "NULL", muster_strerror(rc), err.message);
	assert_non_null(got);
	assert_string_equal(got, want);
	muster_free(got);
}

const char *tfc_fixture_path(const char *name)
{
	static char path[1024];
	const char *srcdir = getenv("MUSTER_TEST_SRCDIR");

	snprintf(path, sizeof(path), "%s/tests/tf_config/fixtures/%s", srcdir ? srcdir : ".",
	         name);
	return path;
}

char *tfc_fixture(const char *name)
{
	const char *path = tfc_fixture_path(name);
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (f == NULL)
		fail_msg("cannot open fixture %s: %s", path, strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}
