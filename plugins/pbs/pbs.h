/*
 * pbs backend: internal interfaces between its files.
 *
 *   pbs.c       descriptor, open()/close(), resolve()
 *   options.c   the entry's options (TensorFlow's PBSClusterResolver
 *               keywords, plus Slurm's gpus_per_node and gpus_per_task)
 *   build.c     the hosts and slots, and the cluster laid out on them
 */
#ifndef MUSTER_PLUGINS_PBS_H
#define MUSTER_PLUGINS_PBS_H

#include <stdbool.h>
#include <stddef.h>

#include <muster/plugin.h>

#include "plugins/common/answer.h"
#include "plugins/common/layout.h"
#include "plugins/common/noted.h"
#include "plugins/common/slots.h"

/* The largest node file read: 65,536 slots of long host names. */
#define PBS_MAX_NODEFILE ((size_t)16 << 20)

struct pbs_conf {
	struct layout_job *jobs;   /* NULL: { worker = all slots }; names are the config's */
	size_t njobs;
	long port_base;
	long tasks_per_node;       /* -1: from the node file */
	struct slots fixed;        /* tasks_per_node given as { host = n; ... } */
	long gpus_per_node;        /* -1: not given */
	long gpus_per_task;        /* -1: not given */
	bool use_cpus;
	char *rpc_layer;
};

/* options.c: the descriptor's open() and close(). */
int pbs_open(const muster_host *host, muster_plugin_ctx *pc, void **state);
void pbs_close(void *state);

/* This process's task: its rank, and its job's id (PBS_JOBID; NULL:
 * none). */
struct pbs_task {
	long rank;
	const char *job_id;
};

/* The hosts and slots the job has, and the cluster built from them.
 * `data` is the node file's text (NULL when tasks_per_node lists the
 * hosts); `source` names it in reasons.  The variables that check the
 * rank's place are read (and noted) through `n`. */
muster_status pbs_build(struct noted *n, const struct pbs_conf *conf, char *data, size_t len,
                        const char *source, const struct pbs_task *task);

#endif
