/*
 * lsf backend: internal interfaces between its files.
 *
 *   lsf.c    descriptor, open()/close(), resolve()
 *   mcpu.c   the LSB_MCPU_HOSTS parser ("host slots host slots ...")
 *   build.c  rank, size and local rank from jsrun (or mpirun), and the
 *            cluster laid out on the slots
 *
 * The rank file is read with plugins/common/hostfile.c.
 */
#ifndef MUSTER_PLUGINS_LSF_H
#define MUSTER_PLUGINS_LSF_H

#include <stddef.h>

#include <muster/plugin.h>

#include "plugins/common/answer.h"
#include "plugins/common/noted.h"
#include "plugins/common/slots.h"

/* The largest rank file read: 65,536 slots of long host names. */
#define LSF_MAX_RANKFILE ((size_t)16 << 20)

struct lsf_conf {
	long port_base;
	char *rpc_layer;
};

/* mcpu.c: `text` (cut in place) into hosts and slots, the first pair (the
 * launch host) left out and pointed to by *first.  0, or -1 with a reason
 * in `why`. */
int lsf_mcpu_parse(char *text, const char **first, struct slots *s, char *why, size_t whylen);

/* build.c: the cluster from the compute slots; `source` names where they
 * came from, `job_id` is LSB_JOBID.  The rank's variables are read (and
 * noted) through `n`. */
muster_status lsf_build(struct noted *n, const struct lsf_conf *conf, const struct slots *s,
                        const char *source, const char *job_id);

#endif
