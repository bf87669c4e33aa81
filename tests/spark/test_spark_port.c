/*
 * The spark plugin through the public API: the TF port it reserves is held
 * by the result (ABI 1.1 hold_port) until muster_result_release_port();
 * TENSORFLOW_PORT binds nothing; four executors resolving at once in one
 * process (one context each, threads) get one cluster.  The server is
 * tests/spark/server.py, a Python reservation server.
 */
#include <config.h>

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/test.h"

#include <muster/muster.h>

static char scratch[64];
static pid_t server_pid = -1;
static int server_port;

/* Start server.py --size N [--mode MODE]; its port in server_port. */
static void start_server_mode(int size, const char *mode)
{
	char portfile[128], sizearg[16], script[1024];
	const char *srcdir = getenv("MUSTER_TEST_SRCDIR");
	FILE *f;
	int i;

	snprintf(script, sizeof(script), "%s/tests/spark/server.py", srcdir ? srcdir : ".");
	snprintf(portfile, sizeof(portfile), "%s/port.%d", scratch, size);
	snprintf(sizearg, sizeof(sizearg), "%d", size);
	unlink(portfile);
	server_pid = fork();
	assert_true(server_pid >= 0);
	if (server_pid == 0) {
		execlp("python3", "python3", script, "--size", sizearg, "--port-file", portfile,
		       "--lifetime", "60", "--mode", mode, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 200; i++) {
		f = fopen(portfile, "r");
		if (f != NULL) {
			int ok = fscanf(f, "%d", &server_port) == 1;

			fclose(f);
			if (ok)
				return;
		}
		usleep(100000);
	}
	fail_msg("the Python reservation server did not start");
}

static void start_server(int size)
{
	start_server_mode(size, "normal");
}

static void stop_server(void)
{
	if (server_pid > 0) {
		kill(server_pid, SIGTERM);
		waitpid(server_pid, NULL, 0);
	}
	server_pid = -1;
}

static muster_ctx *spark_ctx(const char *body)
{
	char path[128], text[1024];
	muster_ctx *ctx = NULL;
	muster_error err;
	static unsigned serial;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/c%u.conf", scratch, ++serial);
	snprintf(text, sizeof(text),
	         "chain = ( { plugin = \"spark\"; timeout_ms = 30000;\n"
	         "  config = { server = \"127.0.0.1:%d\"; %s }; } );\n",
	         server_port, body);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	memset(&err, 0, sizeof(err));
	rc = muster_ctx_open(&ctx, path, NULL, &err);
	if (rc != 0)
		fail_msg("muster_ctx_open: %s", err.message);
	return ctx;
}

static muster_result *resolve(muster_ctx *ctx)
{
	muster_result *res = NULL;
	muster_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = muster_resolve(&res, ctx, &err);
	if (rc != 0)
		fail_msg("muster_resolve: %s (%s)", muster_strerror(rc), err.message);
	return res;
}

/* bind() on 127.0.0.1:port without SO_REUSEADDR: 0 or errno. */
static int try_bind(int port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), rc;

	assert_true(fd >= 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	rc = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 ? 0 : errno;
	close(fd);
	return rc;
}

static int setup(void **state)
{
	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/muster-spark-XXXXXX");
	if (mkdtemp(scratch) == NULL)
		return -1;
	unsetenv("TFOS_SERVER_HOST");
	unsetenv("TFOS_SERVER_PORT");
	unsetenv("TENSORFLOW_PORT");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	stop_server();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) == 0 ? 0 : -1;
}

static void held_until_released(void **state)
{
	muster_ctx *ctx;
	muster_result *res;
	const char *addr;
	char want[32];
	int port;

	(void)state;
	start_server(1);
	ctx = spark_ctx("cluster_size = 1; executor_id = 0;");
	res = resolve(ctx);
	port = muster_result_reserved_port(res);
	assert_true(port > 0);
	addr = muster_result_address(res, "worker", 0);
	snprintf(want, sizeof(want), "127.0.0.1:%d", port);
	assert_string_equal(addr, want);
	assert_string_equal(muster_result_task_type(res), "worker");
	assert_int_equal(muster_result_task_index(res), 0);
	/* Held: nobody else may bind it... */
	assert_int_equal(try_bind(port), EADDRINUSE);
	/* ...until the host releases it right before binding it itself. */
	assert_int_equal(muster_result_release_port(res), 0);
	assert_int_equal(try_bind(port), 0);
	muster_result_free(res);
	muster_ctx_free(ctx);
	stop_server();
}

static void fixed_port_binds_nothing(void **state)
{
	muster_ctx *ctx;
	muster_result *res;

	(void)state;
	start_server(1);
	assert_int_equal(setenv("TENSORFLOW_PORT", "4321", 1), 0);
	ctx = spark_ctx("cluster_size = 1; executor_id = 0;");
	res = resolve(ctx);
	unsetenv("TENSORFLOW_PORT");
	assert_int_equal(muster_result_reserved_port(res), -1);
	assert_string_equal(muster_result_address(res, "worker", 0), "127.0.0.1:4321");
	muster_result_free(res);
	muster_ctx_free(ctx);
	stop_server();
}

static int count_fds(void)
{
	char path[64];
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (access(path, F_OK) == 0)
			n++;
	}
	return n;
}

static int resolve_code(muster_ctx *ctx)
{
	muster_result *res = NULL;
	muster_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = muster_resolve(&res, ctx, &err);
	muster_result_free(res);
	return rc;
}

/* Failures of every kind leave no socket behind; so does a freed result. */
static void no_descriptor_leaks(void **state)
{
	static const char *const modes[] = { "close", "truncated", "global", "huge", "deep" };
	muster_ctx *ctx;
	size_t i;
	int before;

	(void)state;
	start_server(1);
	ctx = spark_ctx("cluster_size = 1; executor_id = 0;");
	stop_server();
	before = count_fds();
	assert_int_equal(resolve_code(ctx), MUSTER_EUNAVAIL); /* refused */
	assert_int_equal(count_fds(), before);
	muster_ctx_free(ctx);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		start_server_mode(1, modes[i]);
		ctx = spark_ctx("cluster_size = 1; executor_id = 0;");
		before = count_fds();
		assert_int_equal(resolve_code(ctx), MUSTER_EUNAVAIL);
		assert_int_equal(count_fds(), before);
		muster_ctx_free(ctx);
		stop_server();
	}
	start_server(1);
	ctx = spark_ctx("cluster_size = 1; executor_id = 0;");
	before = count_fds();
	assert_int_equal(resolve_code(ctx), 0);
	assert_int_equal(count_fds(), before);
	muster_ctx_free(ctx);
	stop_server();
}

struct worker {
	muster_ctx *ctx;
	muster_result *res;
	int rc;
	char message[1024];
};

static void *resolve_thread(void *arg)
{
	struct worker *w = arg;
	muster_error err;

	memset(&err, 0, sizeof(err));
	w->rc = muster_resolve(&w->res, w->ctx, &err);
	snprintf(w->message, sizeof(w->message), "%s", err.message);
	return NULL;
}

static void four_threads_one_cluster(void **state)
{
	struct worker w[4];
	pthread_t t[4];
	char body[128];
	char *json0 = NULL, *json;
	muster_error err;
	int i;

	(void)state;
	start_server(4);
	for (i = 0; i < 4; i++) {
		snprintf(body, sizeof(body), "cluster_size = 4; num_ps = 1; executor_id = %d;", i);
		memset(&w[i], 0, sizeof(w[i]));
		w[i].ctx = spark_ctx(body);
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, resolve_thread, &w[i]), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (i = 0; i < 4; i++) {
		if (w[i].rc != 0)
			fail_msg("executor %d: %s", i, w[i].message);
		assert_string_equal(muster_result_task_type(w[i].res), i == 0 ? "ps" : "worker");
		assert_int_equal(muster_result_task_index(w[i].res), i == 0 ? 0 : i - 1);
		assert_true(muster_result_reserved_port(w[i].res) > 0);
		memset(&err, 0, sizeof(err));
		assert_int_equal(muster_result_to_tf_config(&json, w[i].res, "ps", 0, 0, &err), 0);
		if (json0 == NULL)
			json0 = json;
		else {
			assert_string_equal(json, json0);
			muster_free(json);
		}
		muster_result_free(w[i].res);
		muster_ctx_free(w[i].ctx);
	}
	muster_free(json0);
	stop_server();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(held_until_released),
		cmocka_unit_test(fixed_port_binds_nothing),
		cmocka_unit_test(four_threads_one_cluster),
		cmocka_unit_test(no_descriptor_leaks),
	};

	if (system("python3 -c pass >/dev/null 2>&1") != 0) {
		printf("1..0 # SKIP python3 not found\n");
		return 77;
	}
	return run_tap_tests(tests, setup, teardown);
}
