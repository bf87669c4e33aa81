/*
 * A scriptable backend for the chain and thread tests, compiled several
 * times under different names (STUB_NAME) and thread-safety flags.
 *
 *   config = {
 *     status = "success";          # or notfound / unavail / tryagain
 *     status_env = "VAR";          # read the status from $VAR at each resolve
 *     reason = "why";              # with a non-success status
 *     sleep_ms = 10;               # before answering
 *     fail_open = true;            # open() fails
 *     jobs = { worker = ["a:1", "-", "c:3"]; };   # "-" leaves a hole (sparse)
 *     task = { type = "worker"; index = 0; };
 *     rpc_layer = "grpc"; environment = "env"; master = "m:1";
 *     master_rule = "simple";      # tf_config / simple / task
 *     accelerators = { worker = { GPU = 2; }; };  # every task of the job
 *     accelerator_ids = { worker = { GPU = [0, 1]; }; };  # ids (ABI 1.2), each task
 *     report_concurrency = true;   # environment = "peak=N" (resolves in flight)
 *     hold_port = true;            # bind a loopback port and hand it to the host
 *     ranges = ( { job = "w"; first = 0; count = 3; host = "h"; port = 8000; } );
 *                                  # add_task_range (ABI 1.4); first < 0 appends
 *     reserve = ( { job = "w"; count = 3; } );  # reserve_tasks (ABI 1.5), before all
 *   };
 */
#include <config.h>

#include <netinet/in.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <muster/plugin.h>

#ifndef STUB_NAME
#define STUB_NAME "stub"
#endif
#ifndef STUB_FLAGS
#define STUB_FLAGS MUSTER_PLUGIN_THREADSAFE
#endif

struct stub {
	muster_plugin_ctx *pc;
	const muster_cfg *cfg;
	int status;
	const char *status_env, *reason;
	long long sleep_ms;
	int report_concurrency;
	int hold_port;
	atomic_int in_flight, peak;
};

static const char *const statuses[] = {"success", "notfound", "unavail", "tryagain"};

static int parse_status(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (s && strcmp(s, statuses[i]) == 0)
			return i;
	return -1;
}

static const char *str(const muster_host *h, const muster_cfg *g, const char *key)
{
	const char *s = NULL;
	if (h->cfg_string(h->cfg_get(g, key), &s) < 0)
		return NULL;
	return s;
}

static int stub_open(const muster_host *h, muster_plugin_ctx *pc, void **state)
{
	const muster_cfg *cfg = h->cfg_root(pc);
	int fail_open = 0;
	h->cfg_bool(h->cfg_get(cfg, "fail_open"), &fail_open);
	if (fail_open) {
		h->open_error(pc, h->cfg_get(cfg, "fail_open"), "told to fail");
		return -1;
	}
	struct stub *st = calloc(1, sizeof(*st));
	if (!st)
		return -1;
	st->pc = pc;
	st->cfg = cfg;
	const char *status = str(h, cfg, "status");
	st->status = status ? parse_status(status) : 0;
	if (st->status < 0) {
		h->open_error(pc, h->cfg_get(cfg, "status"), "unknown status '%s'", status);
		free(st);
		return -1;
	}
	st->status_env = str(h, cfg, "status_env");
	st->reason = str(h, cfg, "reason");
	h->cfg_int(h->cfg_get(cfg, "sleep_ms"), &st->sleep_ms);
	h->cfg_bool(h->cfg_get(cfg, "report_concurrency"), &st->report_concurrency);
	h->cfg_bool(h->cfg_get(cfg, "hold_port"), &st->hold_port);
	/* Mark the data keys read, so they are not warned about as unknown. */
	const char *keys[] = {"jobs", "task", "rpc_layer", "environment", "master", "master_rule",
	                      "accelerators", "accelerator_ids", "ranges"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const muster_cfg *n = h->cfg_get(cfg, keys[i]);
		for (size_t j = 0; j < h->cfg_count(n); j++) {
			const muster_cfg *m = h->cfg_at(n, j);
			for (size_t k = 0; k < h->cfg_count(m); k++)
				h->cfg_at(m, k);
		}
	}
	h->cfg_get(h->cfg_get(cfg, "task"), "type");
	h->cfg_get(h->cfg_get(cfg, "task"), "index");
	*state = st;
	return 0;
}

static void stub_close(void *state)
{
	free(state);
}

static void nap(long long ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Each task of a job gets the same ids of each listed kind. */
static int add_ids(const muster_host *h, muster_call *call, const muster_cfg *jobs,
                   const muster_cfg *acc)
{
	if (acc && h->struct_size < offsetof(muster_host, add_accelerator_ids) + sizeof(void *))
		return -1;
	for (size_t j = 0; j < h->cfg_count(acc); j++) {
		const muster_cfg *g = h->cfg_at(acc, j);
		const muster_cfg *job = h->cfg_get(jobs, h->cfg_name(g));
		for (size_t k = 0; k < h->cfg_count(g); k++) {
			const muster_cfg *list = h->cfg_at(g, k);
			int ids[16];
			size_t n = h->cfg_count(list);
			for (size_t m = 0; m < n && m < 16; m++) {
				long long v = 0;
				h->cfg_int(h->cfg_at(list, m), &v);
				ids[m] = (int)v;
			}
			for (size_t i = 0; i < h->cfg_count(job); i++) {
				const char *addr = NULL;
				h->cfg_string(h->cfg_at(job, i), &addr);
				if (addr && strcmp(addr, "-") != 0 &&
				    h->add_accelerator_ids(call, h->cfg_name(g), (long)i,
				                           h->cfg_name(list), ids, n < 16 ? n : 16) < 0)
					return -1;
			}
		}
	}
	return 0;
}

static long num(const muster_host *h, const muster_cfg *g, const char *key)
{
	long long v = 0;
	h->cfg_int(h->cfg_get(g, key), &v);
	return (long)v;
}

static int add_ranges(const muster_host *h, muster_call *call, const muster_cfg *ranges)
{
	for (size_t i = 0; i < h->cfg_count(ranges); i++) {
		const muster_cfg *r = h->cfg_at(ranges, i);
		if (h->add_task_range(call, str(h, r, "job"), num(h, r, "first"), num(h, r, "count"),
		                      str(h, r, "host"), num(h, r, "port")) < 0)
			return -1;
	}
	return 0;
}

static int reserve(const muster_host *h, muster_call *call, const muster_cfg *hints)
{
	if (hints && !MUSTER_HOST_HAS(h, reserve_tasks))
		return -1;
	for (size_t i = 0; i < h->cfg_count(hints); i++) {
		const muster_cfg *r = h->cfg_at(hints, i);
		if (h->reserve_tasks(call, str(h, r, "job"), num(h, r, "count")) < 0)
			return -1;
	}
	return 0;
}

static int build(struct stub *st, const muster_host *h, muster_call *call)
{
	const muster_cfg *jobs = h->cfg_get(st->cfg, "jobs");
	if (reserve(h, call, h->cfg_get(st->cfg, "reserve")) < 0)
		return -1;
	for (size_t j = 0; j < h->cfg_count(jobs); j++) {
		const muster_cfg *job = h->cfg_at(jobs, j);
		const char *name = h->cfg_name(job);
		if (h->add_job(call, name) < 0)
			return -1;
		for (size_t i = 0; i < h->cfg_count(job); i++) {
			const char *addr = NULL;
			h->cfg_string(h->cfg_at(job, i), &addr);
			if (addr && strcmp(addr, "-") != 0 && h->add_task(call, name, (long)i, addr) < 0)
				return -1;
		}
	}
	const muster_cfg *acc = h->cfg_get(st->cfg, "accelerators");
	for (size_t j = 0; j < h->cfg_count(acc); j++) {
		const muster_cfg *g = h->cfg_at(acc, j);
		const muster_cfg *job = h->cfg_get(jobs, h->cfg_name(g));
		for (size_t i = 0; i < h->cfg_count(job); i++) {
			const char *addr = NULL;
			h->cfg_string(h->cfg_at(job, i), &addr);
			for (size_t k = 0; addr && strcmp(addr, "-") != 0 && k < h->cfg_count(g); k++) {
				long long n = 0;
				h->cfg_int(h->cfg_at(g, k), &n);
				if (h->add_accelerator(call, h->cfg_name(g), (long)i, h->cfg_name(h->cfg_at(g, k)),
				                       (long)n) < 0)
					return -1;
			}
		}
	}
	if (add_ids(h, call, jobs, h->cfg_get(st->cfg, "accelerator_ids")) < 0 ||
	    add_ranges(h, call, h->cfg_get(st->cfg, "ranges")) < 0)
		return -1;
	const muster_cfg *task = h->cfg_get(st->cfg, "task");
	long long index = -1;
	h->cfg_int(h->cfg_get(task, "index"), &index);
	const char *rule = str(h, st->cfg, "master_rule");
	int r = !rule ? MUSTER_MASTER_SIMPLE
	        : strcmp(rule, "tf_config") == 0 ? MUSTER_MASTER_TF_CONFIG
	        : strcmp(rule, "task") == 0 ? MUSTER_MASTER_TASK : MUSTER_MASTER_SIMPLE;
	if ((task && h->set_task(call, str(h, task, "type"), (long)index) < 0) ||
	    h->set_rpc_layer(call, str(h, st->cfg, "rpc_layer")) < 0 ||
	    h->set_environment(call, str(h, st->cfg, "environment")) < 0 ||
	    h->set_master(call, str(h, st->cfg, "master")) < 0 || h->set_master_rule(call, r) < 0)
		return -1;
	return 0;
}

/* Binds 127.0.0.1:0 and hands the socket to the host (ABI 1.1). */
static int hold_a_port(const muster_host *h, muster_call *call)
{
	if (h->struct_size < offsetof(muster_host, hold_port) + sizeof(h->hold_port))
		return -1;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		close(fd);
		return -1;
	}
	return h->hold_port(call, fd, ntohs(sa.sin_port));
}

static muster_status stub_resolve(void *state, const muster_host *h, muster_call *call)
{
	struct stub *st = state;
	int now = atomic_fetch_add(&st->in_flight, 1) + 1;
	int seen = atomic_load(&st->peak);
	while (now > seen && !atomic_compare_exchange_weak(&st->peak, &seen, now))
		;
	if (st->sleep_ms > 0)
		nap(st->sleep_ms);
	int status = st->status;
	if (st->status_env) {
		status = parse_status(getenv(st->status_env));
		if (status < 0)
			status = MUSTER_STATUS_UNAVAIL;
	}
	int rc = 0;
	if (status == MUSTER_STATUS_SUCCESS) {
		rc = build(st, h, call);
		if (rc == 0 && st->hold_port)
			rc = hold_a_port(h, call);
		if (rc == 0 && st->report_concurrency) {
			char peak[32];
			snprintf(peak, sizeof(peak), "peak=%d", atomic_load(&st->peak));
			rc = h->set_environment(call, peak);
		}
	} else {
		h->fail(call, "%s", st->reason ? st->reason : statuses[status]);
	}
	atomic_fetch_sub(&st->in_flight, 1);
	return rc < 0 ? MUSTER_STATUS_UNAVAIL : (muster_status)status;
}

static const muster_plugin stub_plugin = {
	MUSTER_PLUGIN_HEADER,
	STUB_FLAGS,
	STUB_NAME,
	"1.0-test",
	stub_open,
	stub_resolve,
	stub_close,
};

MUSTER_PLUGIN_DEFINE(stub_plugin)
