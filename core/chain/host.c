#include <config.h>

#include "host.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain.h"
#include "lib/address.h"
#include "lib/clock.h"
#include "config/cfgview.h"
#include "config/settings.h"

void call_init(struct muster_call *call, struct muster_plugin_ctx *pc, long budget_ms)
{
	memset(call, 0, sizeof(*call));
	call->pc = pc;
	call->budget_ms = budget_ms;
	call->deadline_ms = clock_now_ms() + budget_ms;
}

static void host_log(muster_plugin_ctx *pc, int level, const char *fmt, ...)
{
	va_list ap;
	if (!pc)
		return;
	if (level < MUSTER_LOG_ERR)
		level = MUSTER_LOG_ERR;
	va_start(ap, fmt);
	log_msgv(pc->logger, level, pc->prefix, fmt, ap);
	va_end(ap);
}

static const muster_cfg *host_cfg_root(muster_plugin_ctx *pc)
{
	return pc ? cfgview_node(pc->config) : NULL;
}

static void host_open_error(muster_plugin_ctx *pc, const muster_cfg *at, const char *fmt, ...)
{
	char where[512], what[512];
	va_list ap;
	if (!pc)
		return;
	/* A node muster added (an absent `config`) has no line: use its entry's. */
	const config_setting_t *node = at ? cfgview_setting(at) : pc->config;
	while (node && !config_setting_source_file(node) && config_setting_parent(node))
		node = config_setting_parent(node);
	settings_where(node, where, sizeof(where));
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(pc->open_error, sizeof(pc->open_error), "%s%s%s", where, pc->prefix, what);
}

static void host_fail(muster_call *call, const char *fmt, ...)
{
	va_list ap;
	if (!call)
		return;
	va_start(ap, fmt);
	vsnprintf(call->reason, sizeof(call->reason), fmt, ap);
	va_end(ap);
	if (call->failed)
		call->failed(call->failed_data, call->reason);
}

static long host_remaining_ms(const muster_call *call)
{
	if (!call)
		return 0;
	if (call->watching)
		return call->budget_ms;
	return clock_ms_until(call->deadline_ms);
}

/* The budget bounds CPU work too: a plugin building a huge cluster is
 * refused once it has run out of time, so that it returns instead of
 * running on.  The clock is read every 4096 calls, which costs nothing. */
static int over_budget(muster_call *call)
{
	if (++call->built_calls % 4096 != 0 || host_remaining_ms(call) > 0)
		return 0;
	snprintf(call->builder.reason, sizeof(call->builder.reason),
	         "ran out of its %ld ms budget while building the cluster (%lu items so far)",
	         call->budget_ms, call->built_calls);
	return 1;
}

/* A refused builder call fails the whole answer, even if the plugin then
 * says success: a half-built cluster is never returned. */
static int built(muster_call *call, int rc)
{
	if (rc == 0 && over_budget(call))
		rc = -1;
	if (rc < 0) {
		call->build_failed = 1;
		snprintf(call->reason, sizeof(call->reason), "%s", call->builder.reason);
	}
	return rc;
}

static int refuse(muster_call *call, const char *what)
{
	if (!call)
		return -1;
	snprintf(call->builder.reason, sizeof(call->builder.reason), "%s", what);
	return built(call, -1);
}

static int host_add_job(muster_call *call, const char *job)
{
	if (!call || !job)
		return refuse(call, "add_job: NULL job name");
	return built(call, builder_job(&call->builder, job) ? 0 : -1);
}

/* Task addresses enter the result only through add_task(), which checks
 * each, and add_task_range(), which checks the first for all (only the
 * port differs). */

/* An address that is no plain name: its length, or 0 with the reason.
 * Apart, so that the plain case's frame holds no message buffer. */
static __attribute__((noinline)) size_t careful_length(muster_call *call, const char *job,
                                                       long index, const char *address)
{
	char why[400];
	if (address_check_careful(address, why, sizeof(why)) == 0)
		return strlen(address);
	snprintf(call->builder.reason, sizeof(call->builder.reason), "task %s:%ld: %s", job, index,
	         why);
	return 0;
}

static int host_add_task(muster_call *call, const char *job, long index, const char *address)
{
	size_t len = address ? address_plain_length(address) : 0;

	if (!call || !job)
		return refuse(call, "add_task: NULL job name");
	if (address && !len && (len = careful_length(call, job, index, address)) == 0)
		return built(call, -1);
	return built(call, builder_task_n(&call->builder, job, index, address, len));
}

static int host_add_task_range(muster_call *call, const char *job, long first_index, long count,
                               const char *host, long first_port)
{
	if (!call || !job || !host)
		return refuse(call, "add_task_range: NULL job name or host");
	if (count < 0 || first_port < 1 || first_port > 65535 || count > 65536 - first_port) {
		snprintf(call->builder.reason, sizeof(call->builder.reason),
		         "tasks of %s from %ld: %ld ports from %ld are not all from 1 to 65535", job,
		         first_index, count, first_port);
		return built(call, -1);
	}
	if (count == 0)
		return built(call, 0);
	/* The first address checked stands for all: only the port differs. */
	size_t hostlen = strlen(host);
	char buf[320], why[400];
	char *first = hostlen + 8 <= sizeof(buf) ? buf : malloc(hostlen + 8);
	if (!first)
		return refuse(call, "out of memory");
	address_join(first, host, hostlen, first_port);
	int rc = -1;
	if (address_check(first, why, sizeof(why)) == 0)
		rc = builder_task_range(&call->builder, job, first_index, count, first);
	else
		snprintf(call->builder.reason, sizeof(call->builder.reason), "tasks of %s: %s", job,
		         why);
	if (first != buf)
		free(first);
	return built(call, rc);
}

static int host_reserve_tasks(muster_call *call, const char *job, long count)
{
	if (!call || !job)
		return refuse(call, "reserve_tasks: NULL job name");
	return built(call, builder_reserve(&call->builder, job, count));
}

static int host_add_accelerator(muster_call *call, const char *job, long index, const char *kind,
                                long count)
{
	if (!call || !job)
		return refuse(call, "add_accelerator: NULL job name");
	return built(call, builder_accel(&call->builder, job, index, kind, count));
}

static int host_add_accelerator_ids(muster_call *call, const char *job, long index,
                                    const char *kind, const int *ids, size_t n)
{
	if (!call || !job)
		return refuse(call, "add_accelerator_ids: NULL job name");
	return built(call, builder_accel_ids(&call->builder, job, index, kind, ids, n));
}

static int host_set_task(muster_call *call, const char *type, long index)
{
	if (!call)
		return -1;
	return built(call, builder_set_task(&call->builder, type, index));
}

static int host_set_rpc_layer(muster_call *call, const char *layer)
{
	if (!call)
		return -1;
	return built(call, builder_set_string(&call->builder, &call->builder.r->rpc_layer, layer));
}

static int host_set_environment(muster_call *call, const char *env)
{
	if (!call)
		return -1;
	return built(call, builder_set_string(&call->builder, &call->builder.r->environment, env));
}

static int host_set_master(muster_call *call, const char *master)
{
	if (!call)
		return -1;
	return built(call, builder_set_string(&call->builder, &call->builder.r->master, master));
}

static int host_set_master_rule(muster_call *call, int rule)
{
	if (!call)
		return -1;
	if (rule != MUSTER_MASTER_TF_CONFIG && rule != MUSTER_MASTER_SIMPLE && rule != MUSTER_MASTER_TASK)
		return refuse(call, "set_master_rule: unknown rule");
	call->builder.r->master_rule = rule;
	return 0;
}

static int host_hold_port(muster_call *call, int fd, int port)
{
	if (!call || fd < 0)
		return refuse(call, "hold_port: no socket");
	struct muster_result *r = call->builder.r;
	if (r->held_fd >= 0 || port <= 0 || port > 65535) {
		close(fd);
		return refuse(call, r->held_fd >= 0 ? "hold_port: a port is already held"
		                                    : "hold_port: port out of range");
	}
	r->held_fd = fd;
	r->held_port = port;
	return 0;
}

static int host_set_placement(muster_call *call, int placement)
{
	if (!call)
		return -1;
	if (placement != MUSTER_PLACEMENT_NODES && placement != MUSTER_PLACEMENT_PROCESSES)
		return refuse(call, "set_placement: unknown placement");
	call->builder.r->placement = placement;
	return 0;
}

/* The most hosts a node order holds: far above any scheduler's node
 * count, far below what would overflow its array. */
#define NODE_ORDER_MAX (1L << 24)

static int host_set_node_order(muster_call *call, const char *const *hosts, size_t n)
{
	char buf[320], why[400];
	if (!call || (n && !hosts))
		return refuse(call, "set_node_order: NULL hosts");
	if (n > NODE_ORDER_MAX)
		return refuse(call, "set_node_order: more than 16777216 hosts");
	/* A host is what a task's address has before its port. */
	for (size_t i = 0; i < n; i++) {
		if (!hosts[i])
			return refuse(call, "set_node_order: a NULL host");
		size_t len = strlen(hosts[i]);
		if (len + 8 > sizeof(buf)) {
			snprintf(call->builder.reason, sizeof(call->builder.reason),
			         "node order: host %zu is %zu bytes long", i, len);
			return built(call, -1);
		}
		address_join(buf, hosts[i], len, 1);
		if (address_check(buf, why, sizeof(why)) != 0) {
			snprintf(call->builder.reason, sizeof(call->builder.reason), "node order: %s", why);
			return built(call, -1);
		}
	}
	return built(call, builder_set_node_order(&call->builder, hosts, n));
}

/* The most bytes of a job id: every launcher's fits many times over. */
#define JOB_ID_MAX 256

static int host_set_job_id(muster_call *call, const char *id)
{
	if (!call)
		return -1;
	if (id) {
		size_t len = strnlen(id, JOB_ID_MAX + 1);
		if (len == 0 || len > JOB_ID_MAX)
			return refuse(call, len ? "set_job_id: the id is longer than 256 bytes"
			                        : "set_job_id: an empty id");
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)id[i] < 0x20 || id[i] == 0x7f)
				return refuse(call, "set_job_id: the id has a control character");
	}
	return built(call, builder_set_string(&call->builder, &call->builder.r->job_id, id));
}

static int host_note_input(muster_call *call, const char *name, const char *value)
{
	if (call && call->notes && name && name[0])
		explain_note(call->notes, name, value);
	return 0;
}

static int host_add_pending(muster_call *call, const char *job, long index, const char *name,
                            const char *why)
{
	if (!call)
		return -1;
	return builder_pending(&call->builder, job, index, name, why);
}

static muster_call *host_watch_call_begin(muster_plugin_ctx *pc, long budget_ms,
                                          void (*failed)(void *data, const char *reason),
                                          void *data)
{
	struct muster_call *call = malloc(sizeof(*call));
	if (!call)
		return NULL;
	call_init(call, pc, budget_ms > 0 ? budget_ms : 0);
	if (builder_init(&call->builder) < 0) {
		free(call);
		return NULL;
	}
	call->watching = 1;
	call->failed = failed;
	call->failed_data = data;
	return call;
}

static void host_watch_call_end(muster_call *call)
{
	if (!call)
		return;
	builder_discard(&call->builder);
	free(call);
}

const muster_host host_services = {
	.abi_major = MUSTER_PLUGIN_ABI_MAJOR,
	.abi_minor = MUSTER_PLUGIN_ABI_MINOR,
	.struct_size = sizeof(muster_host),
	.log = host_log,
	.cfg_root = host_cfg_root,
	.cfg_get = cfgview_get,
	.cfg_type = cfgview_type,
	.cfg_count = cfgview_count,
	.cfg_at = cfgview_at,
	.cfg_name = cfgview_name,
	.cfg_string = cfgview_string,
	.cfg_int = cfgview_int,
	.cfg_bool = cfgview_bool,
	.cfg_float = cfgview_float,
	.cfg_file = cfgview_file,
	.cfg_line = cfgview_line,
	.open_error = host_open_error,
	.fail = host_fail,
	.remaining_ms = host_remaining_ms,
	.add_job = host_add_job,
	.add_task = host_add_task,
	.add_accelerator = host_add_accelerator,
	.set_task = host_set_task,
	.set_rpc_layer = host_set_rpc_layer,
	.set_environment = host_set_environment,
	.set_master = host_set_master,
	.set_master_rule = host_set_master_rule,
	.hold_port = host_hold_port,
	.add_accelerator_ids = host_add_accelerator_ids,
	.watch_armed = host_watch_armed,
	.watch_changed = host_watch_changed,
	.watch_stop_fd = host_watch_stop_fd,
	.add_task_range = host_add_task_range,
	.reserve_tasks = host_reserve_tasks,
	.watch_call_begin = host_watch_call_begin,
	.watch_call_end = host_watch_call_end,
	.set_placement = host_set_placement,
	.set_node_order = host_set_node_order,
	.set_job_id = host_set_job_id,
	.note_input = host_note_input,
	.add_pending = host_add_pending,
	.watch_event = host_watch_event,
};
