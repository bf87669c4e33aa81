/*
 * The libvirt backend's watch through the public API, against libvirt's
 * test:///default driver: one instance per process, so the domains this
 * test defines, starts, suspends and destroys over its own connection are
 * the ones the watch's connection sees events of.  Polling is switched
 * off (watch_interval_ms of a day, address_poll_ms = 0): every change
 * comes from an event.  Members by metadata, with fixed indices; the
 * driver's own domain "test" has none and is no member.
 *
 * Where libvirt's daemon is installed, a daemon of the test's own serves
 * test:///default over its socket, and is restarted under a watch.
 */
#include <config.h>

#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <muster/muster.h>

#include "../lib/test.h"

#define EVENT_BOUND_MS 2000 /* an event's change arrives within this */
#define STOP_BOUND_MS 1000
#define QUIET_MS 300        /* nothing more comes within this */
#define RECONNECT_BOUND_MS 10000 /* a daemon restarted, the watch back */
#define LIBVIRTD "/usr/sbin/libvirtd"
#define NOBODY 65534         /* a root test runs the daemon as nobody */

static char dir[] = "/tmp/muster-lvwatch-XXXXXX";
static virConnectPtr rw;

/* What the library logged, for changes that show as a log line only. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char logged[16384];

static void on_log(int level, const char *message, void *data)
{
	size_t len;

	(void)level;
	(void)data;
	pthread_mutex_lock(&log_lock);
	len = strlen(logged);
	if (len + strlen(message) + 2 >= sizeof(logged))
		len = 0; /* keep the newest */
	snprintf(logged + len, sizeof(logged) - len, "%s\n", message);
	pthread_mutex_unlock(&log_lock);
}

static int log_has(const char *a, const char *b)
{
	char copy[sizeof(logged)], *line, *save = NULL;
	int found = 0;

	pthread_mutex_lock(&log_lock);
	memcpy(copy, logged, sizeof(copy));
	pthread_mutex_unlock(&log_lock);
	for (line = strtok_r(copy, "\n", &save); line != NULL && !found;
	     line = strtok_r(NULL, "\n", &save))
		found = strstr(line, a) != NULL && strstr(line, b) != NULL;
	return found;
}

static void log_clear(void)
{
	pthread_mutex_lock(&log_lock);
	logged[0] = '\0';
	pthread_mutex_unlock(&log_lock);
}

/* Waits for a log line naming both, up to the event bound. */
static int wait_log(const char *a, const char *b)
{
	int i;

	for (i = 0; i < EVENT_BOUND_MS / 20; i++) {
		if (log_has(a, b))
			return 1;
		usleep(20 * 1000);
	}
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A domain with one interface on `network`, a member when index >= 0. */
static virDomainPtr define_on(virConnectPtr conn, const char *name, long index,
                              const char *network)
{
	char xml[1024], meta[256] = "";
	virDomainPtr d;

	if (index >= 0)
		snprintf(meta, sizeof(meta),
		         "<metadata><m:task xmlns:m='https://muster.dev/xmlns/libvirt/1' "
		         "job='worker' index='%ld' port='2222'/></metadata>",
		         index);
	snprintf(xml, sizeof(xml),
	         "<domain type='test'><name>%s</name><memory>1024</memory>"
	         "<os><type>hvm</type></os>%s<devices><interface type='network'>"
	         "<source network='%s'/></interface></devices></domain>",
	         name, meta, network);
	d = virDomainDefineXML(conn, xml);
	assert_non_null(d);
	return d;
}

static virDomainPtr define(const char *name, long index)
{
	return define_on(rw, name, index, "default");
}

static void gone(virDomainPtr d)
{
	if (virDomainIsActive(d) == 1)
		assert_int_equal(virDomainDestroy(d), 0);
	assert_int_equal(virDomainUndefine(d), 0);
	virDomainFree(d);
}

/* A watch of a config whose chain is `entries`, with no polling. */
static muster_watch *start_chain(muster_ctx **ctx, const char *entries)
{
	char path[256];
	FILE *f;
	muster_options o = MUSTER_OPTIONS_INIT;
	muster_watch_options wo = MUSTER_WATCH_OPTIONS_INIT;
	muster_error err = { 0, "" };
	muster_watch *w = NULL;

	snprintf(path, sizeof(path), "%s/muster.conf", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "chain = ( %s );\n", entries);
	fclose(f);
	o.log = on_log;
	o.log_level = MUSTER_LOG_INFO;
	if (muster_ctx_open(ctx, path, &o, &err) != 0)
		fail_msg("muster_ctx_open: %s", err.message);
	wo.settle_ms = 0;
	if (muster_watch_start(&w, *ctx, &wo, &err) != 0)
		fail_msg("muster_watch_start: %s", err.message);
	return w;
}

/* One libvirt entry, members by metadata. */
static muster_watch *start_uri(muster_ctx **ctx, const char *uri, const char *inactive)
{
	char entry[1024];

	snprintf(entry, sizeof(entry),
	         "{ plugin = \"libvirt\"; name = \"vm\"; watch_interval_ms = 86400000;\n"
	         "  config = { uri = \"%s\"; inactive = \"%s\"; address_poll_ms = 0;\n"
	         "             dmi_uuid_path = \"%s/none\"; }; }",
	         uri, inactive, dir);
	return start_chain(ctx, entry);
}

static muster_watch *start(muster_ctx **ctx, const char *inactive)
{
	return start_uri(ctx, "test:///default", inactive);
}

static void stop(muster_watch *w, muster_ctx *ctx)
{
	long t0 = now_ms();

	muster_watch_stop(w);
	if (now_ms() - t0 >= STOP_BOUND_MS)
		fail_msg("muster_watch_stop took %ld ms", now_ms() - t0);
	muster_ctx_free(ctx);
}

static muster_change *next_within(muster_watch *w, long bound_ms)
{
	muster_change *c = NULL;
	muster_error err = { 0, "" };
	int rc = muster_watch_next(w, bound_ms, &c, &err);

	if (rc != 1)
		fail_msg("no change within %ld ms (%d: %s); the log:\n%s", bound_ms, rc,
		         err.message, logged);
	return c;
}

static muster_change *next(muster_watch *w)
{
	return next_within(w, EVENT_BOUND_MS);
}

static void no_change(muster_watch *w)
{
	muster_change *c = NULL;
	muster_error err = { 0, "" };

	assert_int_equal(muster_watch_next(w, QUIET_MS, &c, &err), 0);
}

/* The change lists exactly `n` tasks of that kind, worker:INDEX each,
 * with the metadata's port. */
static void expect(const muster_change *c, int kind, size_t n, const long *indices)
{
	size_t i;

	assert_int_equal(muster_change_count(c, kind), n);
	for (i = 0; i < n; i++) {
		const char *job, *address;
		long index;

		assert_int_equal(muster_change_at(c, kind, i, &job, &index, &address), 0);
		assert_string_equal(job, "worker");
		assert_int_equal(index, indices[i]);
		assert_non_null(strstr(address, ":2222"));
	}
}

static void expect_only(muster_change *c, int kind, long index)
{
	int k;

	for (k = MUSTER_CHANGE_ADDED; k <= MUSTER_CHANGE_ACCELERATORS; k++)
		expect(c, k, k == kind ? 1 : 0, &index);
	muster_change_free(c);
}

/* Domain w-0 defined and running, then a watch (inactive = `inactive`)
 * whose first change, the current cluster, is w-0 alone. */
static muster_watch *start_with_w0(virDomainPtr *w0, muster_ctx **ctx, const char *inactive)
{
	const long zero = 0;
	muster_watch *w;
	muster_change *c;

	*w0 = define("w-0", 0);
	assert_int_equal(virDomainCreate(*w0), 0);
	w = start(ctx, inactive);
	c = next(w);
	expect(c, MUSTER_CHANGE_ADDED, 1, &zero);
	assert_int_equal(muster_result_task_count(muster_change_result(c), "worker"), 1);
	muster_change_free(c);
	return w;
}

/* start, suspend, resume, destroy and a metadata edit, each one change. */
static void lifecycle_changes(void **unused)
{
	virDomainPtr w0, w1, u;
	muster_ctx *ctx;
	muster_watch *w;

	(void)unused;
	w = start_with_w0(&w0, &ctx, "skip");

	w1 = define("w-1", 1); /* not running: skipped, so no change */
	no_change(w);
	assert_int_equal(virDomainCreate(w1), 0);
	expect_only(next(w), MUSTER_CHANGE_ADDED, 1);

	assert_int_equal(virDomainSuspend(w0), 0);
	expect_only(next(w), MUSTER_CHANGE_REMOVED, 0);
	assert_int_equal(virDomainResume(w0), 0);
	expect_only(next(w), MUSTER_CHANGE_ADDED, 0);

	assert_int_equal(virDomainDestroy(w1), 0);
	expect_only(next(w), MUSTER_CHANGE_REMOVED, 1);

	u = define("u-0", -1); /* running, but no member until its metadata says so */
	assert_int_equal(virDomainCreate(u), 0);
	no_change(w);
	assert_int_equal(virDomainSetMetadata(u, VIR_DOMAIN_METADATA_ELEMENT,
	                                      "<task job='worker' index='5' port='2222'/>", "m",
	                                      "https://muster.dev/xmlns/libvirt/1",
	                                      VIR_DOMAIN_AFFECT_LIVE),
	                 0);
	expect_only(next(w), MUSTER_CHANGE_ADDED, 5);

	stop(w, ctx);
	gone(u);
	gone(w1);
	gone(w0);
}

/* With inactive = "tryagain": a defined domain that is not running makes
 * the answer tryagain (a log line, no change); undefining it brings the
 * cluster back, without it. */
static void define_undefine(void **unused)
{
	virDomainPtr w0, w1;
	muster_ctx *ctx;
	muster_watch *w;

	(void)unused;
	w = start_with_w0(&w0, &ctx, "tryagain");

	log_clear();
	w1 = define("w-1", 1);
	if (!wait_log("w-1", "shut off"))
		fail_msg("the define was not seen within %d ms; the log:\n%s", EVENT_BOUND_MS, logged);
	no_change(w);

	assert_int_equal(virDomainCreate(w1), 0);
	expect_only(next(w), MUSTER_CHANGE_ADDED, 1);

	log_clear();
	assert_int_equal(virDomainDestroy(w1), 0);
	if (!wait_log("w-1", "shut off"))
		fail_msg("the destroy was not seen within %d ms; the log:\n%s", EVENT_BOUND_MS, logged);

	assert_int_equal(virDomainUndefine(w1), 0);
	virDomainFree(w1);
	expect_only(next(w), MUSTER_CHANGE_REMOVED, 1);

	stop(w, ctx);
	gone(w0);
}

/* Watches started and stopped in a row, also while events arrive: each
 * stop is prompt, and the event loop's thread comes and goes with them
 * (LeakSanitizer checks what is left at exit). */
static void stop_is_prompt(void **unused)
{
	virDomainPtr w0 = define("w-0", 0);
	int round;

	(void)unused;
	assert_int_equal(virDomainCreate(w0), 0);
	for (round = 0; round < 4; round++) {
		muster_ctx *ctx;
		muster_watch *w = start(&ctx, "skip");

		if (round % 2 == 0)
			muster_change_free(next(w));
		/* Events in flight while it stops. */
		assert_int_equal(virDomainSuspend(w0), 0);
		assert_int_equal(virDomainResume(w0), 0);
		stop(w, ctx);
	}
	gone(w0);
}

/* The one task of job `job` that `kind` lists. */
static void expect_task(muster_change *c, int kind, const char *job)
{
	const char *j, *address;
	long index;

	assert_int_equal(muster_change_count(c, kind), 1);
	assert_int_equal(muster_change_at(c, kind, 0, &j, &index, &address), 0);
	assert_string_equal(j, job);
	assert_int_equal(index, 0);
	muster_change_free(c);
}

/* Two libvirt entries merged: two watches at once share the one event
 * loop, and each entry's events are changes. */
static void two_entries(void **unused)
{
	char entries[1024];
	virDomainPtr a, b;
	muster_ctx *ctx;
	muster_watch *w;

	(void)unused;
	snprintf(entries, sizeof(entries),
	         "{ plugin = \"libvirt\"; name = \"a\"; on_success = \"merge\";\n"
	         "  watch_interval_ms = 86400000;\n"
	         "  config = { uri = \"test:///default\"; jobs = { worker = \"a-*\"; };\n"
	         "             address_poll_ms = 0; dmi_uuid_path = \"%s/none\"; }; },\n"
	         "{ plugin = \"libvirt\"; name = \"b\"; watch_interval_ms = 86400000;\n"
	         "  config = { uri = \"test:///default\"; jobs = { ps = \"b-*\"; };\n"
	         "             address_poll_ms = 0; dmi_uuid_path = \"%s/none\"; }; }",
	         dir, dir);
	a = define("a-0", -1);
	assert_int_equal(virDomainCreate(a), 0);
	w = start_chain(&ctx, entries);
	expect_task(next(w), MUSTER_CHANGE_ADDED, "worker"); /* b has none yet */
	b = define("b-0", -1);
	assert_int_equal(virDomainCreate(b), 0);
	expect_task(next(w), MUSTER_CHANGE_ADDED, "ps");
	assert_int_equal(virDomainDestroy(a), 0);
	expect_task(next(w), MUSTER_CHANGE_REMOVED, "worker");
	stop(w, ctx);
	gone(b);
	gone(a);
}

/* A network that comes up: its domains get an address, and libvirt
 * sends no domain event for that. */
static virNetworkPtr network_up(const char *name, int subnet)
{
	char xml[512];
	virNetworkPtr n;

	snprintf(xml, sizeof(xml),
	         "<network><name>%s</name><bridge name='virbr%d'/>"
	         "<ip address='10.%d.0.1' netmask='255.255.255.0'>"
	         "<dhcp><range start='10.%d.0.10' end='10.%d.0.200'/></dhcp></ip></network>",
	         name, subnet, subnet, subnet, subnet);
	assert_non_null(n = virNetworkDefineXML(rw, xml));
	assert_int_equal(virNetworkCreate(n), 0);
	return n;
}

static void network_gone(virNetworkPtr n)
{
	assert_int_equal(virNetworkDestroy(n), 0);
	assert_int_equal(virNetworkUndefine(n), 0);
	virNetworkFree(n);
}

/* Members running without an address, one when the watch starts and one
 * started under it, are read again until they have one: each address
 * is a change, though no domain event and no poll announces it. */
static void address_awaited(void **unused)
{
	virDomainPtr w5 = define_on(rw, "w-5", 5, "late-5"), w6;
	virNetworkPtr n5, n6;
	muster_ctx *ctx;
	muster_watch *w;

	(void)unused;
	assert_int_equal(virDomainCreate(w5), 0);
	w = start(&ctx, "skip");
	no_change(w); /* tryagain: w-5 has no address */
	n5 = network_up("late-5", 95);
	expect_only(next(w), MUSTER_CHANGE_ADDED, 5);

	w6 = define_on(rw, "w-6", 6, "late-6");
	assert_int_equal(virDomainCreate(w6), 0);
	no_change(w);
	n6 = network_up("late-6", 96);
	expect_only(next(w), MUSTER_CHANGE_ADDED, 6);

	stop(w, ctx);
	gone(w6);
	gone(w5);
	network_gone(n6);
	network_gone(n5);
}

/* The test's own libvirt daemon (session mode), in dir/daemon. */
static pid_t daemon_pid = -1;
static char daemon_home[300], daemon_sock[400];

static void daemon_child(const char *run)
{
	char log[400];
	int fd;

	snprintf(log, sizeof(log), "%s/libvirtd.log", daemon_home);
	if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600)) >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 || setuid(NOBODY) < 0))
		_exit(127);
	setenv("HOME", daemon_home, 1);
	setenv("XDG_RUNTIME_DIR", run, 1);
	unsetenv("XDG_CONFIG_HOME");
	execl(LIBVIRTD, "libvirtd", (char *)NULL);
	_exit(127);
}

static int daemon_start(void)
{
	char run[350];
	struct stat st;
	int i;

	snprintf(daemon_home, sizeof(daemon_home), "%s/daemon", dir);
	snprintf(run, sizeof(run), "%s/run", daemon_home);
	snprintf(daemon_sock, sizeof(daemon_sock), "%s/libvirt/libvirt-sock", run);
	mkdir(daemon_home, 0700);
	mkdir(run, 0700);
	/* nobody reaches its directories through the scratch directory. */
	if (geteuid() == 0 && (chmod(dir, 0711) < 0 || chown(daemon_home, NOBODY, NOBODY) < 0 ||
	                       chown(run, NOBODY, NOBODY) < 0))
		return -1;
	if ((daemon_pid = fork()) < 0)
		return -1;
	if (daemon_pid == 0)
		daemon_child(run);
	for (i = 0; i < 200; i++) {
		if (stat(daemon_sock, &st) == 0 && S_ISSOCK(st.st_mode))
			return 0;
		usleep(50 * 1000);
	}
	return -1;
}

static void daemon_stop(void)
{
	if (daemon_pid <= 0)
		return;
	kill(daemon_pid, SIGTERM);
	waitpid(daemon_pid, NULL, 0);
	daemon_pid = -1;
	unlink(daemon_sock); /* the next start waits for a new one */
}

static virDomainPtr started_on(virConnectPtr conn, const char *name, long index)
{
	virDomainPtr d = define_on(conn, name, index, "default");

	assert_int_equal(virDomainCreate(d), 0);
	return d;
}

/* The daemon restarted under a watch: the watch says the connection
 * closed, reconnects, and its first change shows what changed meanwhile
 * (a new daemon's test:///default, with w-0 again and now w-1). */
static void reconnects(void **unused)
{
	char uri[512];
	virConnectPtr held;
	muster_ctx *ctx;
	muster_watch *w;
	muster_change *c;
	const long zero = 0, one = 1;

	(void)unused;
	if (access(LIBVIRTD, X_OK) != 0)
		skip(); /* no libvirt daemon installed */
	if (daemon_start() < 0) {
		print_message("# %s cannot run here; see %s/libvirtd.log\n", LIBVIRTD, daemon_home);
		skip();
	}
	snprintf(uri, sizeof(uri), "test+unix:///default?socket=%s", daemon_sock);
	/* The daemon's test:///default lives while a connection holds it. */
	assert_non_null(held = virConnectOpen(uri));
	virDomainFree(started_on(held, "w-0", 0));

	w = start_uri(&ctx, uri, "skip");
	c = next(w);
	expect(c, MUSTER_CHANGE_ADDED, 1, &zero);
	muster_change_free(c);

	log_clear();
	daemon_stop();
	virConnectClose(held);
	if (daemon_start() < 0)
		fail_msg("%s did not start again", LIBVIRTD);
	assert_non_null(held = virConnectOpen(uri));
	virDomainFree(started_on(held, "w-0", 0));
	virDomainFree(started_on(held, "w-1", 1));

	c = next_within(w, RECONNECT_BOUND_MS);
	expect(c, MUSTER_CHANGE_ADDED, 1, &one);
	expect(c, MUSTER_CHANGE_REMOVED, 0, NULL);
	muster_change_free(c);
	if (!wait_log("connection", "closed") || !wait_log("reconnected", uri))
		fail_msg("no close or reconnection logged:\n%s", logged);

	stop(w, ctx);
	virConnectClose(held);
	daemon_stop();
}

/* A watch that cannot connect says why (the reason its call failed with)
 * and ends; the core polls the entry. */
static void cannot_watch_says_why(void **unused)
{
	char uri[512];
	muster_ctx *ctx;
	muster_watch *w;

	(void)unused;
	log_clear();
	snprintf(uri, sizeof(uri), "test+unix:///default?socket=%s/no-daemon", dir);
	w = start_uri(&ctx, uri, "skip");
	if (!wait_log("watch: cannot watch: ", "no-daemon") || !wait_log("watch ended", "polling"))
		fail_msg("no reason logged:\n%s", logged);
	stop(w, ctx);
}

static int setup(void **unused)
{
	(void)unused;
	if (mkdtemp(dir) == NULL)
		return -1;
	/* libvirt reads no settings of the caller's. */
	setenv("HOME", dir, 1);
	setenv("XDG_CONFIG_HOME", dir, 1);
	setenv("XDG_RUNTIME_DIR", dir, 1);
	unsetenv("LIBVIRT_DEFAULT_URI");
	unsetenv("LIBVIRT_LOG_OUTPUTS");
	rw = virConnectOpen("test:///default");
	return rw != NULL ? 0 : -1;
}

static int teardown(void **unused)
{
	char cmd[300];

	(void)unused;
	virConnectClose(rw);
	daemon_stop();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lifecycle_changes),
		cmocka_unit_test(define_undefine),
		cmocka_unit_test(address_awaited),
		cmocka_unit_test(two_entries),
		cmocka_unit_test(stop_is_prompt),
		cmocka_unit_test(reconnects),
		cmocka_unit_test(cannot_watch_says_why),
	};

	return run_tap_tests(tests, setup, teardown);
}
