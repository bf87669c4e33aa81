/*
 * The plugin loader seen through the public API: the deliberately broken
 * plugins of tests/abi (broken.c, good.c) each give their documented error,
 * a failed entry answers unavail so the chain falls through to the next,
 * `strict = true` (or MUSTER_CTX_STRICT) turns the failure into an error of
 * muster_ctx_open(); plugin names are validated, group/world-writable
 * files and directories are refused, the file checked is the file loaded
 * even while its name is swapped, the plugin path is searched in order,
 * and one .so serves several entries and contexts (opened from several
 * threads at once) without being unloaded.
 *
 * Needs MUSTER_TEST_BUILDDIR (set by `make check`); the plugins are
 * check_LTLIBRARIES in $MUSTER_TEST_BUILDDIR/tests/abi/.libs.
 */
#include <config.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/test.h"

#include <muster/muster.h>
#include <muster/plugin.h>

/* The chain's working end in every test config. */
#define FALLBACK \
	"{ plugin = \"static\"; config = { jobs = { worker = [\"fallback.invalid:2222\"]; }; }; }"
#define FALLBACK_ADDRESS "fallback.invalid:2222"

static char tmpdir[PATH_MAX];   /* this run's scratch directory (canonical) */
static char abi_libs[PATH_MAX]; /* .../tests/abi/.libs (canonical) */
static char env_path[PATH_MAX]; /* what MUSTER_PLUGIN_PATH is during the tests */
static int conf_seq;

/* ---- helpers ----------------------------------------------------------- */

static void assert_contains_(const char *hay, const char *needle, const char *file, int line)
{
	if (!hay || !strstr(hay, needle)) {
		print_error("%s:%d: expected \"%s\"\n      in \"%s\"\n", file, line, needle,
		            hay ? hay : "(null)");
		_fail(file, line);
	}
}
#define assert_contains(hay, needle) assert_contains_((hay), (needle), __FILE__, __LINE__)

static void write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
	assert_int_equal(chmod(path, mode), 0); /* exactly, whatever the umask */
}

/* Writes a config file from a format; its path goes to `path`. */
static void make_conf(char *path, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void make_conf(char *path, size_t size, const char *fmt, ...)
{
	char text[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(text));
	n = snprintf(path, size, "%s/conf-%d.conf", tmpdir, ++conf_seq);
	assert_true(n > 0 && (size_t)n < size);
	write_file(path, text, strlen(text), 0644);
}

/* A copy of <abi_libs>/<plugin>.so at `dst`, with `mode`. */
static void copy_plugin(const char *plugin, const char *dst, mode_t mode)
{
	char src[PATH_MAX];
	char *data;
	FILE *f;
	long len;

	snprintf(src, sizeof(src), "%s/%s.so", abi_libs, plugin);
	f = fopen(src, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	data = malloc((size_t)len);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	write_file(dst, data, (size_t)len, mode);
	free(data);
}

/* A directory with the given mode, and in it a copy of good.so. */
static void make_plugin_dir(char *dir, size_t size, const char *name, mode_t dir_mode,
                            mode_t file_mode)
{
	char dst[PATH_MAX];

	assert_true((size_t)snprintf(dir, size, "%s/%s", tmpdir, name) < size);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dst, sizeof(dst), "%s/good.so", dir);
	copy_plugin("good", dst, file_mode);
	assert_int_equal(chmod(dir, dir_mode), 0);
}

/* What the library logged while a context was opened. */
struct log_capture {
	int n;
	int level[32];
	char msg[32][1024];
};

static void capture_log(int level, const char *message, void *data)
{
	struct log_capture *lc = data;

	if (lc->n < 32) {
		lc->level[lc->n] = level;
		snprintf(lc->msg[lc->n], sizeof(lc->msg[0]), "%s", message);
		lc->n++;
	}
}

static int logged(const struct log_capture *lc, int max_level, const char *needle)
{
	int i;

	for (i = 0; i < lc->n; i++)
		if (lc->level[i] <= max_level && strstr(lc->msg[i], needle))
			return 1;
	return 0;
}

/* Opens a context that must open; prints the message if it does not. */
static muster_ctx *open_ok(const char *conf, const muster_options *opts)
{
	muster_ctx *ctx = NULL;
	muster_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = muster_ctx_open(&ctx, conf, opts, &err);
	if (rc != 0)
		print_error("muster_ctx_open(%s): %d: %s\n", conf, rc, err.message);
	assert_int_equal(rc, 0);
	assert_non_null(ctx);
	return ctx;
}

/* Opens a context that must fail with `code`; returns the message. */
static void open_fails(const char *conf, const muster_options *opts, int code, muster_error *err)
{
	muster_ctx *ctx = NULL;
	int rc;

	memset(err, 0, sizeof(*err));
	rc = muster_ctx_open(&ctx, conf, opts, err);
	if (rc != code)
		print_error("muster_ctx_open(%s): %d (wanted %d): %s\n", conf, rc, code, err->message);
	assert_int_equal(rc, code);
	assert_int_equal(err->code, code);
	assert_null(ctx);
	if (ctx)
		muster_ctx_free(ctx);
}

static void entry(const muster_ctx *ctx, size_t i, muster_entry_info *info)
{
	memset(info, 0, sizeof(*info));
	assert_int_equal(muster_ctx_entry_info(ctx, i, info), 0);
}

/* Resolves; the result must come from `source` with worker 0 at `address`. */
static void resolve_from(muster_ctx *ctx, const char *source, const char *address,
                         const char *environment)
{
	muster_result *res = NULL;
	muster_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = muster_resolve(&res, ctx, &err);
	if (rc != 0)
		print_error("muster_resolve: %d: %s\n", rc, err.message);
	assert_int_equal(rc, 0);
	assert_non_null(res);
	assert_string_equal(muster_result_source(res), source);
	assert_string_equal(muster_result_address(res, "worker", 0), address);
	if (environment)
		assert_string_equal(muster_result_environment(res), environment);
	muster_result_free(res);
}

/* ---- the broken plugins ------------------------------------------------ */

struct broken_case {
	const char *plugin;
	int strict_code;     /* what strict mode makes of it */
	const char *want[4]; /* substrings of the reason; "%s" = <libs>/<plugin>.so */
};

static char short_struct_reason[128];

static const struct broken_case broken_cases[] = {
	{ "abi_major2", MUSTER_EABI,
	  { "%s was built for plugin ABI 2, this libmuster speaks 1" } },
	{ "abi_lying", MUSTER_EABI,
	  { "%s was built for plugin ABI 2, this libmuster speaks 1" } },
	{ "short_struct", MUSTER_EABI, { "%s: ", short_struct_reason } },
	{ "no_entry", MUSTER_EPLUGIN, { "%s does not export muster_plugin_entry_v1" } },
	{ "unresolved", MUSTER_EPLUGIN,
	  { "cannot load %s: ", "undefined symbol", "muster_test_function_that_exists_nowhere",
	    "try: ldd %s)" } },
	{ "wrong_name", MUSTER_EPLUGIN, { "%s declares itself as 'good', not 'wrong_name'" } },
	{ "null_resolve", MUSTER_EPLUGIN, { "%s has no resolve callback" } },
};

static void check_reason(const struct broken_case *bc, const char *text)
{
	char file[PATH_MAX + 64], want[2 * PATH_MAX];
	size_t i;

	snprintf(file, sizeof(file), "%s/%s.so", abi_libs, bc->plugin);
	for (i = 0; i < 4 && bc->want[i]; i++) {
		const char *pct = strstr(bc->want[i], "%s");

		if (pct)
			snprintf(want, sizeof(want), "%.*s%s%s", (int)(pct - bc->want[i]), bc->want[i],
			         file, pct + 2);
		else
			snprintf(want, sizeof(want), "%s", bc->want[i]);
		assert_contains(text, want);
	}
}

static void test_broken(void **state)
{
	const struct broken_case *bc = *state;
	muster_options opts = MUSTER_OPTIONS_INIT;
	struct log_capture lc = { 0 };
	muster_entry_info info;
	char conf[PATH_MAX];
	muster_result *res = NULL;
	muster_error err;
	muster_ctx *ctx;

	/* Not strict: the entry fails, is reported, and the chain goes on. */
	make_conf(conf, sizeof(conf),
	          "plugin_path = \"%s\";\n"
	          "chain = (\n"
	          "  { plugin = \"%s\"; },\n"
	          "  " FALLBACK "\n"
	          ");\n",
	          abi_libs, bc->plugin);
	opts.log = capture_log;
	opts.log_data = &lc;
	opts.log_level = MUSTER_LOG_DEBUG;
	ctx = open_ok(conf, &opts);
	assert_int_equal(muster_ctx_entry_count(ctx), 2);
	entry(ctx, 0, &info);
	assert_string_equal(info.plugin, bc->plugin);
	assert_string_equal(info.instance, bc->plugin);
	assert_int_equal(info.state, MUSTER_PLUGIN_FAILED);
	check_reason(bc, info.reason);
	assert_string_equal(info.config_file, conf);
	assert_int_equal(info.config_line, 3);
	entry(ctx, 1, &info);
	assert_string_equal(info.plugin, "static");
	assert_int_equal(info.state, MUSTER_PLUGIN_BUILTIN);
	assert_null(info.file);
	/* Logged when it happened (warning or worse), with the reason. */
	entry(ctx, 0, &info);
	if (!logged(&lc, MUSTER_LOG_WARNING, info.reason)) {
		int i;

		for (i = 0; i < lc.n; i++)
			print_error("logged <%d> %s\n", lc.level[i], lc.msg[i]);
		fail_msg("the load failure was not logged as a warning: %s", info.reason);
	}
	resolve_from(ctx, "static", FALLBACK_ADDRESS, NULL);
	muster_ctx_free(ctx);

	/* The failed entry answers unavail: told to return on unavail, the
	 * chain stops there. */
	make_conf(conf, sizeof(conf),
	          "plugin_path = \"%s\";\n"
	          "chain = (\n"
	          "  { plugin = \"%s\"; on_unavail = \"return\"; },\n"
	          "  " FALLBACK "\n"
	          ");\n",
	          abi_libs, bc->plugin);
	ctx = open_ok(conf, NULL);
	memset(&err, 0, sizeof(err));
	assert_int_equal(muster_resolve(&res, ctx, &err), MUSTER_EUNAVAIL);
	assert_null(res);
	assert_int_equal(err.code, MUSTER_EUNAVAIL);
	assert_contains(err.message, bc->plugin);
	muster_ctx_free(ctx);

	/* strict = true: the context does not open, and says why. */
	make_conf(conf, sizeof(conf),
	          "strict = true;\n"
	          "plugin_path = \"%s\";\n"
	          "chain = (\n"
	          "  { plugin = \"%s\"; },\n"
	          "  " FALLBACK "\n"
	          ");\n",
	          abi_libs, bc->plugin);
	open_fails(conf, NULL, bc->strict_code, &err);
	check_reason(bc, err.message);

	/* MUSTER_CTX_STRICT does the same for a config that is not strict. */
	make_conf(conf, sizeof(conf),
	          "plugin_path = \"%s\";\n"
	          "chain = ( { plugin = \"%s\"; }, " FALLBACK " );\n",
	          abi_libs, bc->plugin);
	opts.log = NULL;
	opts.log_data = NULL;
	opts.flags = MUSTER_CTX_STRICT;
	open_fails(conf, &opts, bc->strict_code, &err);
	check_reason(bc, err.message);
}

/* ---- plugins that must load -------------------------------------------- */

static void test_good(void **state)
{
	muster_entry_info info;
	char conf[PATH_MAX], file[PATH_MAX + 16];
	muster_ctx *ctx;

	(void)state;
	make_conf(conf, sizeof(conf),
	          "strict = true;\n"
	          "plugin_path = \"%s\";\n"
	          "chain = (\n"
	          "  { plugin = \"good\"; name = \"mine\"; config = { tag = \"t\"; }; },\n"
	          "  " FALLBACK "\n"
	          ");\n",
	          abi_libs);
	ctx = open_ok(conf, NULL);
	entry(ctx, 0, &info);
	snprintf(file, sizeof(file), "%s/good.so", abi_libs);
	assert_string_equal(info.plugin, "good");
	assert_string_equal(info.instance, "mine");
	assert_int_equal(info.state, MUSTER_PLUGIN_LOADED);
	assert_null(info.reason);
	assert_string_equal(info.version, "1.0-test");
	assert_int_equal(info.abi_major, MUSTER_PLUGIN_ABI_MAJOR);
	assert_int_equal(info.abi_minor, MUSTER_PLUGIN_ABI_MINOR);
	assert_string_equal(info.file, file);
	assert_string_equal(info.config_file, conf);
	assert_int_equal(info.config_line, 4);
	resolve_from(ctx, "mine", "good.invalid:1", "t");
	muster_ctx_free(ctx);
}

/* Loadable, although exporting too much (exports.sh flags it). */
static void test_extra_export_loads(void **state)
{
	muster_entry_info info;
	char conf[PATH_MAX];
	muster_ctx *ctx;

	(void)state;
	make_conf(conf, sizeof(conf),
	          "strict = true;\nplugin_path = \"%s\";\n"
	          "chain = ( { plugin = \"extra_export\"; }, " FALLBACK " );\n",
	          abi_libs);
	ctx = open_ok(conf, NULL);
	entry(ctx, 0, &info);
	assert_int_equal(info.state, MUSTER_PLUGIN_LOADED);
	resolve_from(ctx, "extra_export", "good.invalid:1", NULL);
	muster_ctx_free(ctx);
}

/* A plugin built for a later minor, with a longer descriptor: same major,
 * so it loads and the fields this core does not know are ignored. */
static void test_newer_minor_loads(void **state)
{
	muster_entry_info info;
	char conf[PATH_MAX];
	muster_ctx *ctx;

	(void)state;
	make_conf(conf, sizeof(conf),
	          "strict = true;\nplugin_path = \"%s\";\n"
	          "chain = ( { plugin = \"newer_minor\"; }, " FALLBACK " );\n",
	          abi_libs);
	ctx = open_ok(conf, NULL);
	entry(ctx, 0, &info);
	assert_int_equal(info.state, MUSTER_PLUGIN_LOADED);
	assert_int_equal(info.abi_major, MUSTER_PLUGIN_ABI_MAJOR);
	assert_int_equal(info.abi_minor, MUSTER_PLUGIN_ABI_MINOR + 7);
	resolve_from(ctx, "newer_minor", "good.invalid:1", NULL);
	muster_ctx_free(ctx);
}

/* ---- names and the search path ----------------------------------------- */

static void test_invalid_names(void **state)
{
	static const char *const names[] = { "../etc", "Bad", "a/b", "good.so", "-x", "" };
	muster_error err;
	char conf[PATH_MAX], want[PATH_MAX + 128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		make_conf(conf, sizeof(conf),
		          "plugin_path = \"%s\";\n"
		          "chain = (\n"
		          "  " FALLBACK ",\n"
		          "  { plugin = \"%s\"; }\n"
		          ");\n",
		          abi_libs, names[i]);
		/* A config error, strict or not. */
		open_fails(conf, NULL, MUSTER_ECONFIG, &err);
		snprintf(want, sizeof(want), "%s:4", conf);
		assert_contains(err.message, want);
		if (names[i][0]) {
			snprintf(want, sizeof(want), "invalid plugin name '%s': use [a-z0-9_]+",
			         names[i]);
			assert_contains(err.message, want);
		}
	}
}

static void test_not_found(void **state)
{
	muster_entry_info info;
	muster_error err;
	char conf[PATH_MAX];
	muster_ctx *ctx;

	(void)state;
	make_conf(conf, sizeof(conf),
	          "plugin_path = \"%s\";\n"
	          "chain = ( { plugin = \"no_such_plugin\"; }, " FALLBACK " );\n",
	          abi_libs);
	ctx = open_ok(conf, NULL);
	entry(ctx, 0, &info);
	assert_int_equal(info.state, MUSTER_PLUGIN_FAILED);
	assert_contains(info.reason, "plugin 'no_such_plugin' not found in ");
	assert_contains(info.reason, abi_libs);
	assert_contains(info.reason, env_path); /* then $MUSTER_PLUGIN_PATH */
	assert_null(info.file);
	resolve_from(ctx, "static", FALLBACK_ADDRESS, NULL);
	muster_ctx_free(ctx);

	make_conf(conf, sizeof(conf),
	          "strict = true;\nplugin_path = \"%s\";\n"
	          "chain = ( { plugin = \"no_such_plugin\"; }, " FALLBACK " );\n",
	          abi_libs);
	/* Under strict an unknown plugin is a configuration error. */
	open_fails(conf, NULL, MUSTER_ECONFIG, &err);
	assert_contains(err.message, "unknown plugin 'no_such_plugin'");
}

/* The config's plugin_path first, then $MUSTER_PLUGIN_PATH. */
static void test_search_order(void **state)
{
	muster_entry_info info;
	char conf[PATH_MAX], dir[PATH_MAX], file[PATH_MAX + 16];
	muster_ctx *ctx;

	(void)state;
	assert_int_equal(setenv("MUSTER_PLUGIN_PATH", abi_libs, 1), 0);

	/* Only the environment names a directory. */
	make_conf(conf, sizeof(conf), "strict = true;\nchain = ( { plugin = \"good\"; } );\n");
	ctx = open_ok(conf, NULL);
	entry(ctx, 0, &info);
	snprintf(file, sizeof(file), "%s/good.so", abi_libs);
	assert_int_equal(info.state, MUSTER_PLUGIN_LOADED);
	assert_string_equal(info.file, file);
	muster_ctx_free(ctx);

	/* Both do: the config wins. */
	make_plugin_dir(dir, sizeof(dir), "search-order", 0755, 0644);
	make_conf(conf, sizeof(conf),
	          "strict = true;\nplugin_path = \"%s\";\nchain = ( { plugin = \"good\"; } );\n",
	          dir);
	ctx = open_ok(conf, NULL);
	entry(ctx, 0, &info);
	snprintf(file, sizeof(file), "%s/good.so", dir);
	assert_int_equal(info.state, MUSTER_PLUGIN_LOADED);
	assert_string_equal(info.file, file);
	resolve_from(ctx, "good", "good.invalid:1", NULL);
	muster_ctx_free(ctx);

	assert_int_equal(setenv("MUSTER_PLUGIN_PATH", env_path, 1), 0);
}

/* ---- permissions ------------------------------------------------------- */

struct perm_case {
	const char *dir;
	mode_t dir_mode, file_mode;
	int file_is_culprit; /* else the directory is */
};

static const struct perm_case perm_cases[] = {
	{ "file-group-writable", 0755, 0664, 1 },
	{ "file-world-writable", 0755, 0646, 1 },
	{ "dir-group-writable", 0775, 0644, 0 },
	{ "dir-world-writable", 0757, 0644, 0 },
};

static void test_writable(void **state)
{
	const struct perm_case *pc = *state;
	muster_entry_info info;
	muster_error err;
	char conf[PATH_MAX], dir[PATH_MAX], want[2 * PATH_MAX + 128];
	muster_ctx *ctx;

	make_plugin_dir(dir, sizeof(dir), pc->dir, pc->dir_mode, pc->file_mode);
	if (pc->file_is_culprit)
		snprintf(want, sizeof(want),
		         "%s/good.so is writable by group or others; refused as unsafe", dir);
	else
		snprintf(want, sizeof(want),
		         "%s/good.so: directory %s is writable by group or others and not sticky; "
		         "refused as unsafe",
		         dir, dir);
	make_conf(conf, sizeof(conf),
	          "plugin_path = \"%s\";\nchain = ( { plugin = \"good\"; }, " FALLBACK " );\n",
	          dir);
	ctx = open_ok(conf, NULL);
	entry(ctx, 0, &info);
	assert_int_equal(info.state, MUSTER_PLUGIN_FAILED);
	assert_contains(info.reason, want);
	resolve_from(ctx, "static", FALLBACK_ADDRESS, NULL);
	muster_ctx_free(ctx);

	make_conf(conf, sizeof(conf),
	          "strict = true;\nplugin_path = \"%s\";\n"
	          "chain = ( { plugin = \"good\"; }, " FALLBACK " );\n",
	          dir);
	open_fails(conf, NULL, MUSTER_EPLUGIN, &err);
	assert_contains(err.message, want);
}

/* The same copy, owner-writable only, loads: the mode was the reason. */
static void test_private_copy_loads(void **state)
{
	muster_entry_info info;
	char conf[PATH_MAX], dir[PATH_MAX];
	muster_ctx *ctx;

	(void)state;
	make_plugin_dir(dir, sizeof(dir), "private-copy", 0755, 0644);
	make_conf(conf, sizeof(conf),
	          "strict = true;\nplugin_path = \"%s\";\nchain = ( { plugin = \"good\"; } );\n", dir);
	ctx = open_ok(conf, NULL);
	entry(ctx, 0, &info);
	assert_int_equal(info.state, MUSTER_PLUGIN_LOADED);
	muster_ctx_free(ctx);
}

/* ---- the file checked is the file loaded -------------------------------- */

/* good.so and an impostor (also "good", answering impostor.invalid:1;
 * world-writable and, as root, another user's) swap names without pause
 * while forked children each open a context: every child either loads
 * good.so or refuses what it opened, and none ever runs the impostor.
 * Checking a path and then dlopen()ing the path loses this race now and
 * then (about one child in ten here). */
#define SWAP_CHILDREN 100

struct swapper {
	pthread_t thread;
	char a[PATH_MAX], b[PATH_MAX + 16];
	atomic_int stop;
	long swaps;
	int error;
};

static void *swap_names(void *arg)
{
	struct swapper *sw = arg;

	while (!atomic_load(&sw->stop)) {
		if (renameat2(AT_FDCWD, sw->a, AT_FDCWD, sw->b, RENAME_EXCHANGE) != 0) {
			sw->error = errno;
			break;
		}
		sw->swaps++;
	}
	return NULL;
}

enum outcome { RAN_GOOD, REFUSED, RAN_IMPOSTOR, OTHER, NOUTCOMES };

/* Which plugin answered a fresh context on `conf`. */
static enum outcome outcome_of(const char *conf)
{
	enum outcome o = OTHER;
	muster_result *res = NULL;
	muster_error err;
	muster_ctx *ctx;
	const char *address;

	if (muster_ctx_open(&ctx, conf, NULL, &err) != 0)
		return OTHER;
	if (muster_resolve(&res, ctx, &err) == 0 &&
	    (address = muster_result_address(res, "worker", 0)) != NULL)
		o = strcmp(address, "good.invalid:1") == 0        ? RAN_GOOD
		    : strcmp(address, FALLBACK_ADDRESS) == 0      ? REFUSED
		    : strcmp(address, "impostor.invalid:1") == 0 ? RAN_IMPOSTOR
		                                                  : OTHER;
	muster_result_free(res);
	muster_ctx_free(ctx);
	return o;
}

static void test_swap_while_loading(void **state)
{
	static struct swapper sw;
	long count[NOUTCOMES] = { 0 };
	char conf[PATH_MAX], dir[PATH_MAX];
	int i, status;
	pid_t pid;

	(void)state;
	make_plugin_dir(dir, sizeof(dir), "swap", 0755, 0644);
	snprintf(sw.a, sizeof(sw.a), "%s/good.so", dir);
	snprintf(sw.b, sizeof(sw.b), "%s/impostor.so", dir);
	copy_plugin("impostor", sw.b, 0666);
	if (geteuid() == 0)
		assert_int_equal(chown(sw.b, 65534, 65534), 0);
	make_conf(conf, sizeof(conf), "plugin_path = \"%s\";\nchain = ( { plugin = \"good\"; }, "
	          FALLBACK " );\n", dir);
	atomic_store(&sw.stop, 0);
	assert_int_equal(pthread_create(&sw.thread, NULL, swap_names, &sw), 0);
	for (i = 0; i < SWAP_CHILDREN; i++) {
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			_exit(outcome_of(conf));
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) < NOUTCOMES);
		count[WEXITSTATUS(status)]++;
	}
	atomic_store(&sw.stop, 1);
	assert_int_equal(pthread_join(sw.thread, NULL), 0);
	print_message("%ld swaps: %ld loaded good.so, %ld refused, %ld ran the impostor, %ld other\n",
	              sw.swaps, count[RAN_GOOD], count[REFUSED], count[RAN_IMPOSTOR], count[OTHER]);
	if (sw.error == EINVAL || sw.error == ENOSYS)
		skip(); /* this file system cannot exchange names */
	assert_int_equal(sw.error, 0);
	assert_int_equal(count[RAN_IMPOSTOR], 0);
	assert_int_equal(count[OTHER], 0);
	/* Both outcomes: the names really moved under the loader. */
	assert_true(count[RAN_GOOD] > 0 && count[REFUSED] > 0);
}

/* ---- sharing ----------------------------------------------------------- */

/* One .so, two entries with their own config, in two contexts alive at
 * once; freeing one context leaves the other working, and the object stays
 * mapped after both are gone (muster never dlcloses a plugin). */
static void test_shared_object(void **state)
{
	muster_entry_info a, b, c;
	char conf1[PATH_MAX], conf2[PATH_MAX];
	muster_ctx *ctx1, *ctx2;
	void *handle;

	(void)state;
	make_conf(conf1, sizeof(conf1),
	          "strict = true;\nplugin_path = \"%s\";\n"
	          "chain = (\n"
	          "  { plugin = \"good\"; name = \"a\"; config = { tag = \"tag-a\"; }; },\n"
	          "  { plugin = \"good\"; name = \"b\"; config = { tag = \"tag-b\"; }; }\n"
	          ");\n",
	          abi_libs);
	make_conf(conf2, sizeof(conf2),
	          "strict = true;\nplugin_path = \"%s\";\n"
	          "chain = (\n"
	          "  { plugin = \"good\"; name = \"a\"; config = { tag = \"tag-a\"; };"
	          " on_success = \"continue\"; },\n"
	          "  { plugin = \"good\"; name = \"b\"; config = { tag = \"tag-b\"; }; }\n"
	          ");\n",
	          abi_libs);
	ctx1 = open_ok(conf1, NULL);
	ctx2 = open_ok(conf2, NULL);

	entry(ctx1, 0, &a);
	entry(ctx1, 1, &b);
	entry(ctx2, 0, &c);
	assert_int_equal(a.state, MUSTER_PLUGIN_LOADED);
	assert_int_equal(b.state, MUSTER_PLUGIN_LOADED);
	assert_int_equal(c.state, MUSTER_PLUGIN_LOADED);
	assert_string_equal(a.instance, "a");
	assert_string_equal(b.instance, "b");
	assert_string_equal(a.file, b.file);
	assert_string_equal(a.file, c.file);

	/* Each instance has its own state. */
	resolve_from(ctx1, "a", "good.invalid:1", "tag-a");
	resolve_from(ctx2, "b", "good.invalid:1", "tag-b");
	muster_ctx_free(ctx1);
	resolve_from(ctx2, "b", "good.invalid:1", "tag-b");

	muster_ctx_free(ctx2);

	handle = dlopen(c.file, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	assert_non_null(handle); /* still mapped: never dlclosed */
	dlclose(handle);
}

/* Contexts opened by many threads at once load a plugin nobody has loaded
 * yet (a fresh copy): one load, every context gets it. */
#define RACERS 8

struct racer {
	pthread_t thread;
	const char *conf;
	int rc;
	int state;
	char file[PATH_MAX];
	char message[1024];
};

static void *race_open(void *arg)
{
	struct racer *r = arg;
	muster_entry_info info;
	muster_ctx *ctx = NULL;
	muster_error err;

	memset(&err, 0, sizeof(err));
	r->rc = muster_ctx_open(&ctx, r->conf, NULL, &err);
	snprintf(r->message, sizeof(r->message), "%s", err.message);
	if (r->rc == 0) {
		memset(&info, 0, sizeof(info));
		if (muster_ctx_entry_info(ctx, 0, &info) == 0) {
			r->state = info.state;
			snprintf(r->file, sizeof(r->file), "%s", info.file ? info.file : "");
		}
		muster_ctx_free(ctx);
	}
	return NULL;
}

static void test_concurrent_load(void **state)
{
	struct racer racers[RACERS];
	char conf[PATH_MAX], dir[PATH_MAX], file[PATH_MAX + 16];
	int i;

	(void)state;
	make_plugin_dir(dir, sizeof(dir), "concurrent", 0755, 0644);
	make_conf(conf, sizeof(conf),
	          "strict = true;\nplugin_path = \"%s\";\nchain = ( { plugin = \"good\"; } );\n", dir);
	snprintf(file, sizeof(file), "%s/good.so", dir);
	memset(racers, 0, sizeof(racers));
	for (i = 0; i < RACERS; i++) {
		racers[i].conf = conf;
		assert_int_equal(pthread_create(&racers[i].thread, NULL, race_open, &racers[i]), 0);
	}
	for (i = 0; i < RACERS; i++)
		assert_int_equal(pthread_join(racers[i].thread, NULL), 0);
	for (i = 0; i < RACERS; i++) {
		if (racers[i].rc != 0)
			print_error("thread %d: %d: %s\n", i, racers[i].rc, racers[i].message);
		assert_int_equal(racers[i].rc, 0);
		assert_int_equal(racers[i].state, MUSTER_PLUGIN_LOADED);
		assert_string_equal(racers[i].file, file);
	}
}

/* ---- setup ------------------------------------------------------------- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int group_setup(void **state)
{
	const char *builddir = getenv("MUSTER_TEST_BUILDDIR");
	const char *tmp = getenv("TMPDIR");
	char buf[PATH_MAX];

	(void)state;
	if (!builddir) {
		fprintf(stderr, "MUSTER_TEST_BUILDDIR is not set: run me from make check\n");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s/tests/abi/.libs", builddir);
	if (!realpath(buf, abi_libs)) {
		fprintf(stderr, "%s: %s (the plugins are built by make check)\n", buf,
		        strerror(errno));
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s/muster-abi.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(buf) || !realpath(buf, tmpdir) || chmod(tmpdir, 0755) != 0) {
		fprintf(stderr, "%s: %s\n", buf, strerror(errno));
		return -1;
	}
	/* The tests own the search path: no plugin of another test suite. */
	snprintf(env_path, sizeof(env_path), "%s/no-plugins-here", tmpdir);
	setenv("MUSTER_PLUGIN_PATH", env_path, 1);
	snprintf(short_struct_reason, sizeof(short_struct_reason),
	         "descriptor is 16 bytes, shorter than plugin ABI 1.0's %zu",
	         offsetof(muster_plugin, close) + sizeof(void (*)(void *)));
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (tmpdir[0] && !getenv("MUSTER_TEST_KEEP"))
		nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* Table-driven tests, named after their case. */
#define BROKEN(i, name) { "broken: " name, test_broken, NULL, NULL, (void *)&broken_cases[i] }
#define PERM(i, name) { "writable: " name, test_writable, NULL, NULL, (void *)&perm_cases[i] }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		BROKEN(0, "abi_major2"),
		BROKEN(1, "abi_lying"),
		BROKEN(2, "short_struct"),
		BROKEN(3, "no_entry"),
		BROKEN(4, "unresolved"),
		BROKEN(5, "wrong_name"),
		BROKEN(6, "null_resolve"),
		cmocka_unit_test(test_extra_export_loads),
		cmocka_unit_test(test_newer_minor_loads),
		cmocka_unit_test(test_invalid_names),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_search_order),
		PERM(0, "file g+w"),
		PERM(1, "file o+w"),
		PERM(2, "directory g+w"),
		PERM(3, "directory o+w"),
		cmocka_unit_test(test_private_copy_loads),
		cmocka_unit_test(test_swap_while_loading),
		cmocka_unit_test(test_shared_object),
		cmocka_unit_test(test_concurrent_load),
	};

	_Static_assert(sizeof(broken_cases) / sizeof(broken_cases[0]) == 7, "BROKEN(i) list");
	_Static_assert(sizeof(perm_cases) / sizeof(perm_cases[0]) == 4, "PERM(i) list");
	return run_tap_tests(tests, group_setup, group_teardown);
}
