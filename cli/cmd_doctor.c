/* muster doctor [--for FRAMEWORK] [--task TYPE:ID] [--jobs J,...]
 *               [--nproc-per-node N|gpu] [--timeout S] [--format table|json] */
#include <config.h>

#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"

#define DOCTOR_MAX_TIMEOUT_MS 3600000L

enum { GROUP_CLUSTER, GROUP_NETWORK, GROUP_PORT, GROUP_PROXY, GROUP_LAUNCH, NGROUPS };

struct network_job {
	struct doctor_rows *rows;
	const struct doctor_launch *dl;
	muster_plan *plan;
	long timeout_ms;
};

static void *network_thread(void *arg)
{
	struct network_job *j = arg;
	doctor_check_network(j->rows, j->dl, j->plan, j->timeout_ms);
	return NULL;
}

static void cluster_row(struct doctor_rows *r, const struct doctor_launch *dl,
                        const muster_result *res)
{
	doctor_add(r, DOCTOR_OK, "cluster", muster_result_source(res), NULL,
	           "%zu node%s; this node is node %zu (%s); master %s port %d", dl->nnodes,
	           dl->nnodes == 1 ? "" : "s", dl->self, dl->node[dl->self].host, dl->master_host,
	           dl->master_port);
}

int doctor_run(const muster_result *res, muster_plan *plan, long timeout_ms, int json, FILE *f,
               int always)
{
	struct doctor_rows groups[NGROUPS];
	struct doctor_launch dl;
	pthread_t thread;
	int rc = doctor_launch_read(&dl, plan, res);

	if (rc != 0) {
		doctor_launch_free(&dl);
		return rc;
	}
	memset(groups, 0, sizeof(groups));
	struct network_job job = { &groups[GROUP_NETWORK], &dl, plan, timeout_ms };
	/* The network's checks wait on peers; the others are local, read only
	 * `dl` and `res`, and run meanwhile.  Without a thread, the same checks run one after the
	 * other, the network's still within the timeout. */
	int threaded = pthread_create(&thread, NULL, network_thread, &job) == 0;
	cluster_row(&groups[GROUP_CLUSTER], &dl, res);
	doctor_check_port(&groups[GROUP_PORT], &dl);
	doctor_check_proxy(&groups[GROUP_PROXY], &dl);
	doctor_check_launch(&groups[GROUP_LAUNCH], &dl, res);
	if (threaded)
		pthread_join(thread, NULL);
	else
		network_thread(&job);
	enum doctor_level worst = doctor_worst(groups, NGROUPS);
	if (always || worst == DOCTOR_PROBLEM)
		doctor_print(f, groups, NGROUPS, json);
	for (size_t g = 0; g < NGROUPS; g++)
		doctor_rows_free(&groups[g]);
	doctor_launch_free(&dl);
	return worst == DOCTOR_PROBLEM ? CLI_EXIT_PROBLEM : CLI_EXIT_OK;
}

/* --timeout S: seconds, a fraction allowed; -1 (message printed) when not. */
static long parse_timeout(const char *arg)
{
	char *end;
	double s = strtod(arg, &end);

	if (arg[0] == '\0' || *end != '\0' || !(s > 0) || s * 1000 > DOCTOR_MAX_TIMEOUT_MS) {
		cli_usage_error("doctor: --timeout '%s': expected seconds above 0, at most %ld", arg,
		                DOCTOR_MAX_TIMEOUT_MS / 1000);
		return -1;
	}
	return s * 1000 < 1 ? 1 : (long)(s * 1000);
}

int cmd_doctor(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LAUNCH_LONGOPTS,
		{ "timeout", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	long timeout_ms = DOCTOR_DEFAULT_TIMEOUT_MS;
	struct cli_launch cl;
	muster_ctx *ctx;
	muster_result *res;
	muster_plan *plan = NULL;
	int json = 0, c, rc;

	cli_launch_init(&cl, "doctor");
	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		if (cli_launch_option(&cl, c, optarg) == 0)
			continue;
		switch (c) {
		case 't':
			if ((timeout_ms = parse_timeout(optarg)) < 0)
				return CLI_EXIT_USAGE;
			break;
		case 'f':
			if (cli_parse_table_format("doctor", optarg, &json) != 0)
				return CLI_EXIT_USAGE;
			break;
		default:
			return cli_getopt_default(c, argv, "doctor");
		}
	}
	if (optind < argc)
		return cli_usage_error("doctor: unexpected argument '%s'", argv[optind]);
	if (cl.l.framework == NULL)
		cl.l.framework = "pytorch";
	if ((rc = cli_launch_finish(&cl, "tensorflow pytorch jax")) != 0 ||
	    (rc = cli_open_resolve(&ctx, &res, g)) != 0) {
		cli_launch_free(&cl);
		return rc;
	}
	if ((rc = cli_launch_plan(&plan, res, &cl, g)) == 0)
		rc = doctor_run(res, plan, timeout_ms, json, stdout, 1);
	muster_plan_free(plan);
	muster_result_free(res);
	muster_ctx_free(ctx);
	cli_launch_free(&cl);
	return out_finish(rc);
}
