/* muster run --for FRAMEWORK [--task TYPE:ID] [--jobs J,...]
 *            [--nproc-per-node N|gpu] [--gpus-per-proc K]
 *            [--numa-binding node|socket|exclusive] [--tee-prefix] [--no-ifname]
 *            [--doctor] [--allow-nested] [--master-timeout S] [--wait-master]
 *            [--elastic [--min-nodes A] [--max-nodes B] [--settle-ms N]]
 *            [--] COMMAND [ARGS...] */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor.h"
#include "run.h"
#include "run_ready.h"

/* One process: become it, with no launcher left behind. */
static int exec_one(struct run_plan *p)
{
	int saved;

	fflush(stdout);
	fflush(stderr);
	if (run_pin(&p->w[0]) != 0) {
		cli_error("run: cannot run %s on its --numa-binding CPUs: %s", p->argv[0],
		          strerror(errno));
		return 126;
	}
	muster_result_release_port(p->res);
	run_clean_signals();
	execvpe(p->argv[0], p->argv, p->w[0].envp);
	saved = errno;
	cli_error("run: cannot run %s: %s", p->argv[0], strerror(saved));
	return saved == ENOENT ? 127 : 126;
}

static int launch(const struct cli_global *g, struct cli_launch *cl, long gpus_per_proc,
                  int numa, int tee, const struct run_ready *ready, char **argv)
{
	struct run_plan p = { NULL, 0, argv, tee, NULL, g->verbosity < 0, numa, g->verbosity > 0, 0 };
	muster_plan *plan = NULL;
	muster_ctx *ctx;
	int rc = cli_open_resolve(&ctx, &p.res, g);

	if (rc != 0)
		return rc;
	/* One plan for every worker: their ranks are read from it, not
	 * computed again per worker. */
	if ((rc = cli_launch_plan(&plan, p.res, cl, g)) == 0 &&
	    (rc = cli_launch_network(plan, cl, g)) == 0)
		rc = cli_plan_own_count(plan, &p.n);
	if (rc == 0 && (p.w = calloc((size_t)p.n, sizeof(*p.w))) == NULL) {
		cli_error("%s", muster_strerror(MUSTER_ENOMEM));
		rc = CLI_EXIT_SOFTWARE;
	} else if (rc == 0) {
		for (long i = 0; i < p.n; i++)
			p.w[i].out[0] = p.w[i].out[1] = p.w[i].err[0] = p.w[i].err[1] = -1;
		rc = run_build_env(&p, plan, cl->command, gpus_per_proc, NULL);
	}
	/* The master first, so that the doctor's checks find it there. */
	if (rc == 0)
		rc = run_wait_master(g, ready, plan);
	if (rc == 0 && cl->doctor)
		rc = doctor_run(p.res, plan, DOCTOR_DEFAULT_TIMEOUT_MS, 0, stderr, g->verbosity >= 1);
	muster_plan_free(plan);
	if (rc == 0)
		rc = p.n == 1 && !tee ? exec_one(&p) : run_supervise(&p);
	if (p.w != NULL)
		run_free_env(&p);
	free(p.w);
	muster_result_free(p.res);
	muster_ctx_free(ctx);
	return rc;
}

/* --min-nodes, --max-nodes and --settle-ms: only with --elastic, in order. */
static int check_elastic(int elastic, int given, const struct run_elastic_opts *o,
                         const char *framework)
{
	if (!elastic)
		return given ? cli_usage_error("run: --min-nodes, --max-nodes and --settle-ms go "
		                               "with --elastic") : 0;
	if (strcmp(framework, "tensorflow") == 0)
		return cli_usage_error("run: --elastic: --for pytorch or jax (a TF_CONFIG has no "
		                       "node numbering to follow)");
	if (o->max_nodes < o->min_nodes)
		return cli_usage_error("run: --max-nodes %ld is below --min-nodes %ld", o->max_nodes,
		                       o->min_nodes);
	return 0;
}

/* --doctor checks one launch before it starts, not --elastic's series. */
static int check_doctor(int elastic, int doctor)
{
	return elastic && doctor ? cli_usage_error("run: --doctor checks one launch, not "
	                                           "--elastic's (run muster doctor first)") : 0;
}

/* --numa-binding's mode: MUSTER_BIND_*, 0 (message printed) for none. */
static int parse_numa(const char *arg)
{
	static const char *const modes[] = { "node", "socket", "exclusive" };
	for (int i = 0; i < 3; i++)
		if (strcmp(arg, modes[i]) == 0)
			return MUSTER_BIND_NODE + i;
	cli_usage_error("run: --numa-binding '%s': expected node, socket or exclusive", arg);
	return 0;
}

/* A node count; 0 (message printed) when it is not one. */
static long parse_nodes(const char *opt, const char *arg)
{
	long v = cli_parse_count(arg, 1L << 24);
	if (v == 0)
		cli_usage_error("run: %s '%s': expected a count from 1 to %ld", opt, arg, 1L << 24);
	return v;
}

/* Inside a torchrun worker (PyTorch's own test: TORCHELASTIC_RUN_ID), a
 * launch would start its processes under each of torchrun's: processes ×
 * processes, ranks counted twice.  Only --allow-nested goes on. */
static int refuse_nested(void)
{
	if (getenv("TORCHELASTIC_RUN_ID") == NULL)
		return 0;
	cli_error("run: this process is a torchrun worker (TORCHELASTIC_RUN_ID is set): a launch "
	          "here would start its processes under each of torchrun's; run COMMAND directly "
	          "(muster env gives it torchrun's ranks), or pass --allow-nested");
	return CLI_EXIT_USAGE;
}

int cmd_run(const struct cli_global *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LAUNCH_LONGOPTS,
		RUN_READY_LONGOPTS,
		{ "gpus-per-proc", required_argument, NULL, 'G' },
		{ "tee-prefix", no_argument, NULL, 'T' },
		{ "numa-binding", required_argument, NULL, 'N' },
		{ "no-ifname", no_argument, NULL, CLI_OPT_NO_IFNAME },
		{ "doctor", no_argument, NULL, CLI_OPT_DOCTOR },
		{ "allow-nested", no_argument, NULL, 'A' },
		{ "elastic", no_argument, NULL, 'E' },
		{ "min-nodes", required_argument, NULL, 'm' },
		{ "max-nodes", required_argument, NULL, 'M' },
		{ "settle-ms", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	/* A restart costs the workers their start-up: pods that turn Running
	 * within a second of each other restart them once. */
	struct run_elastic_opts eo = { 1, LONG_MAX, 1000 };
	struct cli_launch cl;
	struct run_ready ready;
	long gpus_per_proc = 0;
	int tee = 0, elastic = 0, given = 0, numa = 0, nested = 0, c, rc;

	cli_launch_init(&cl, "run");
	run_ready_init(&ready);
	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		if (cli_launch_option(&cl, c, optarg) == 0)
			continue;
		if ((rc = run_ready_option(&ready, c, optarg)) >= 0) {
			if (rc != 0)
				return rc;
			continue;
		}
		switch (c) {
		case 'G':
			gpus_per_proc = cli_parse_count(optarg, 65536);
			if (gpus_per_proc == 0)
				return cli_usage_error("run: --gpus-per-proc '%s': expected a count "
				                       "from 1 to 65536", optarg);
			break;
		case 'T':
			tee = 1;
			break;
		case 'A':
			nested = 1;
			break;
		case 'N':
			if ((numa = parse_numa(optarg)) == 0)
				return CLI_EXIT_USAGE;
			break;
		case CLI_OPT_NO_IFNAME:
			cl.no_ifname = 1;
			break;
		case CLI_OPT_DOCTOR:
			cl.doctor = 1;
			break;
		case 'E':
			elastic = 1;
			break;
		case 'm':
			given = 1;
			if ((eo.min_nodes = parse_nodes("--min-nodes", optarg)) == 0)
				return CLI_EXIT_USAGE;
			break;
		case 'M':
			given = 1;
			if ((eo.max_nodes = parse_nodes("--max-nodes", optarg)) == 0)
				return CLI_EXIT_USAGE;
			break;
		case 's':
			given = 1;
			if ((eo.settle_ms = cli_parse_ms("run: --settle-ms", optarg, 3600000)) < 0)
				return CLI_EXIT_USAGE;
			break;
		default:
			return cli_getopt_default(c, argv, "run");
		}
	}
	if (optind >= argc)
		return cli_usage_error("run: no command given (muster run --for F -- COMMAND ...)");
	if (!nested && (rc = refuse_nested()) != 0) {
		cli_launch_free(&cl);
		return rc;
	}
	if ((rc = cli_launch_finish(&cl, "tensorflow pytorch jax")) == 0 &&
	    (rc = check_elastic(elastic, given, &eo, cl.l.framework)) == 0 &&
	    (rc = check_doctor(elastic, cl.doctor)) == 0 &&
	    (rc = run_ready_check(&ready, elastic, cl.l.framework)) == 0)
		rc = elastic ? run_elastic(g, &cl, &eo, gpus_per_proc, numa, tee, argv + optind)
		             : launch(g, &cl, gpus_per_proc, numa, tee, &ready, argv + optind);
	cli_launch_free(&cl);
	return out_finish(rc);
}
