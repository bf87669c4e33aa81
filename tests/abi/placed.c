/*
 * A plugin of ABI 1.7 and 1.8 for tests/abi/test_services: a scheduler-like answer
 * (processes placement, a node order, a job id, noted inputs), flagged
 * MUSTER_PLUGIN_DETECTS.  Its config's `mode` picks what it does:
 *
 *   "scheduler" (default)  four tasks, two per host, node order node2,
 *                          node1, job id "4242", inputs noted (one secret,
 *                          one URL with a password, one unset, one twice)
 *   "old_host"             the same through plugin.h's helpers, on a copy
 *                          of the host table cut to ABI 1.6: none applies
 *   "bad_placement"        set_placement(7), then success
 *   "bad_host"             a node order with a host that is no host name
 *   "empty_id"             set_job_id("")
 *   "flood"                100 inputs noted
 *   "not_ready"            ABI 1.8: tryagain, with the two tasks of node1
 *                          and three pending members (one of an unknown
 *                          index, one whose name has a control character)
 *   "pending"              success, the four tasks and one pending member
 *   "pending_flood"        tryagain after 70000 pending members
 *   "pending_old_host"     "pending" through plugin.h's helper on a host
 *                          cut to ABI 1.7: none is kept, nothing fails
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <muster/plugin.h>

struct placed {
	char *mode;
};

static const muster_popt options[] = {
	MUSTER_POPT_STRING("mode", struct placed, mode, 0, "scheduler"),
};

static int placed_open(const muster_host *host, muster_plugin_ctx *pc, void **state)
{
	struct placed *p = muster_plugin_conf_new(host, pc, sizeof(*p));
	muster_popts o = { host, pc, host->cfg_root(pc) };

	if (!p)
		return -1;
	if (muster_popt_read(&o, options, MUSTER_POPT_COUNT(options), p) != 0) {
		free(p->mode);
		free(p);
		return -1;
	}
	*state = p;
	return 0;
}

static int add_tasks(const muster_host *host, muster_call *call)
{
	return host->add_task_range(call, "worker", 0, 2, "node1", 8888) ||
	       host->add_task_range(call, "worker", 2, 2, "node2", 8888) ||
	       host->set_task(call, "worker", 1);
}

/* What a scheduler backend does, through the helpers that work on any host. */
static int describe(const muster_host *host, muster_call *call)
{
	static const char *const order[] = { "node2", "node1" };

	if (muster_plugin_set_placement(host, call, MUSTER_PLACEMENT_PROCESSES) != 0 ||
	    muster_plugin_set_node_order(host, call, order, 2) != 0 ||
	    muster_plugin_set_job_id(host, call, "4242") != 0)
		return -1;
	muster_plugin_note_input(host, call, "PLACED_NODELIST", "node[1-9]");
	muster_plugin_note_input(host, call, "PLACED_API_TOKEN", "s3cret-token");
	muster_plugin_note_input(host, call, "https_proxy", "http://user:pw@proxy.invalid:3128/x");
	muster_plugin_note_input(host, call, "PLACED_UNSET", NULL);
	muster_plugin_note_input(host, call, "PLACED_NODELIST", "node[1-2]"); /* replaces */
	return 0;
}

/* ABI 1.8: members known but not ready. */
static muster_status pending(const char *mode, const muster_host *host, muster_call *call)
{
	if (strcmp(mode, "not_ready") == 0) {
		if (host->add_task_range(call, "worker", 0, 2, "node1", 8888) != 0 ||
		    host->set_task(call, "worker", 1) != 0)
			return MUSTER_STATUS_UNAVAIL;
		host->add_pending(call, "worker", 2, "pod-2", "Pending");
		host->add_pending(call, "worker", 3, "pod\x1b[31m-3", "Running but has no pod IP yet");
		host->add_pending(call, "ps", -5, NULL, NULL);
		host->fail(call, "2/4 ready");
		return MUSTER_STATUS_TRYAGAIN;
	}
	if (strcmp(mode, "pending_flood") == 0) {
		for (long i = 0; i < 70000; i++)
			host->add_pending(call, "worker", i, "x", "flood");
		host->fail(call, "flooded");
		return MUSTER_STATUS_TRYAGAIN;
	}
	muster_host old = *host;
	old.abi_minor = 7;
	old.struct_size = (uint32_t)offsetof(muster_host, add_pending);
	if (add_tasks(host, call) != 0 ||
	    muster_plugin_add_pending(strcmp(mode, "pending") == 0 ? host : &old, call, "worker",
	                              4, "pod-4", "Pending") != 0)
		return MUSTER_STATUS_UNAVAIL;
	return MUSTER_STATUS_SUCCESS;
}

static muster_status placed_resolve(void *state, const muster_host *host, muster_call *call)
{
	const struct placed *p = state;

	if (strstr(p->mode, "pending") || strcmp(p->mode, "not_ready") == 0)
		return pending(p->mode, host, call);
	if (add_tasks(host, call) != 0)
		return MUSTER_STATUS_UNAVAIL;
	if (strcmp(p->mode, "scheduler") == 0)
		return describe(host, call) == 0 ? MUSTER_STATUS_SUCCESS : MUSTER_STATUS_UNAVAIL;
	if (strcmp(p->mode, "old_host") == 0) {
		muster_host old = *host;
		old.abi_minor = 6;
		old.struct_size = (uint32_t)offsetof(muster_host, set_placement);
		return describe(&old, call) == 0 ? MUSTER_STATUS_SUCCESS : MUSTER_STATUS_UNAVAIL;
	}
	if (strcmp(p->mode, "bad_placement") == 0) {
		host->set_placement(call, 7);
		return MUSTER_STATUS_SUCCESS; /* the refusal fails the answer anyway */
	}
	if (strcmp(p->mode, "bad_host") == 0) {
		static const char *const order[] = { "node1", "no such host!" };
		host->set_node_order(call, order, 2);
		return MUSTER_STATUS_SUCCESS;
	}
	if (strcmp(p->mode, "empty_id") == 0) {
		host->set_job_id(call, "");
		return MUSTER_STATUS_SUCCESS;
	}
	for (int i = 0; i < 100; i++) { /* flood */
		char name[32];
		snprintf(name, sizeof(name), "PLACED_VAR_%d", i);
		host->note_input(call, name, "v");
	}
	return MUSTER_STATUS_SUCCESS;
}

static void placed_close(void *state)
{
	struct placed *p = state;

	if (p) {
		free(p->mode);
		free(p);
	}
}

static const muster_plugin placed_plugin = {
	MUSTER_PLUGIN_HEADER,
	.flags = MUSTER_PLUGIN_THREADSAFE | MUSTER_PLUGIN_DETECTS,
	.name = "placed",
	.version = "1.0-test",
	.open = placed_open,
	.resolve = placed_resolve,
	.close = placed_close,
};
MUSTER_PLUGIN_DEFINE(placed_plugin)
