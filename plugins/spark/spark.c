/*
 * spark: the cluster from a TensorFlowOnSpark-compatible reservation server,
 * either TFoS's own driver or
 * `muster reserve`.
 *
 * Each process of the job is one executor: it computes its job and task
 * index from the template as TFoS does (ps, then the master node, then the
 * evaluator, then workers), reserves its TF port, registers, waits until
 * every executor has, and answers the whole ClusterSpec with itself in it.
 * The socket holding the reserved port goes into the result (hold_port);
 * the host releases it right before binding its own server.
 *
 * Answers:
 *   notfound  no server known (no `server`, no TFOS_SERVER_HOST/PORT), or
 *             the executor id variable is unset: not a Spark executor
 *   unavail   server unreachable, closed, stuck (io_timeout_ms), garbage or
 *             hostile replies, duplicate executor ids, inconsistent templates
 *   tryagain  registered, but the reservations were not complete in time
 *             (reservation_timeout_ms or the entry's budget): says how many
 *             are missing and which
 *
 * Options are listed in options.c and in muster.conf(5).  resolve() keeps
 * everything in locals and reads the options only, so one state serves
 * many threads at once.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "spark.h"

static muster_status spark_resolve(void *state, const muster_host *host, muster_call *call)
{
	struct spark_run run = { .host = host, .call = call, .conf = state };
	struct spark_port port = { -1, -1 };
	pv *list = NULL;
	muster_status st;

	st = spark_read_env(&run);
	if (st != MUSTER_STATUS_SUCCESS)
		return st;
	spark_clock_start(&run);
	st = spark_session(&run, &list, &port);
	if (st == MUSTER_STATUS_SUCCESS)
		st = spark_build(&run, list);
	pv_free(list);
	if (st == MUSTER_STATUS_SUCCESS && spark_port_hand_over(&run, &port) != 0)
		st = MUSTER_STATUS_UNAVAIL;
	spark_port_close(&port);
	return st;
}

static const muster_plugin spark_plugin = {
	MUSTER_PLUGIN_HEADER,
	/* A reservation is fixed once complete, and its server may be gone
	 * after: a watch has nothing to poll. */
	MUSTER_PLUGIN_THREADSAFE | MUSTER_PLUGIN_CONFIG_ONLY,
	"spark",
	PACKAGE_VERSION,
	spark_open,
	spark_resolve,
	spark_close,
};

MUSTER_PLUGIN_DEFINE(spark_plugin)
