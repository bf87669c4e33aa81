/*
 * platforms: the platforms that announce a job in each process's
 * environment (docs/platforms.md), one file each, behind one plugin and
 * one table.  A chain entry names one platform (`platform = "torchrun"`),
 * so that the chain writes their order down (innermost launcher first,
 * conf/muster.conf) and an explanation shows each one's answer.
 *
 *   platforms.c   the descriptor, the options, the table of platforms
 *   read.c        reading the environment: every variable validated with
 *                 an error naming it, noted for muster resolve --explain
 *   build.c       the answers' shapes: nodes at known hosts, processes
 *                 whose other nodes' hosts are unknown (placeholders),
 *                 names numbered after the master's
 *   torchrun.c launcher.c kubeflow.c trainer.c mpi_operator.c volcano.c
 *   lws.c skypilot.c aws_batch.c azureml.c vertex.c tpu.c
 *                 one platform each (launcher.c: the early `launcher` and
 *                 the last `bare`, one contract)
 *
 * Every platform answers notfound off its platform, unavail naming what is
 * missing or wrong when its variables are half there or bad, and success
 * with the cluster, its own task, its placement (nodes or processes) and,
 * where the platform names no master port, its job id.
 */
#ifndef MUSTER_PLUGINS_PLATFORMS_H
#define MUSTER_PLUGINS_PLATFORMS_H

#include <stddef.h>

#include <muster/plugin.h>

#include "lib/env.h"
#include "plugins/common/answer.h"

/* Members of one job, processes of one launch: far above any real one. */
#define PF_MAX_TASKS (1L << 20)
/* The largest file a platform gives (a host file, a CLUSTER_SPEC). */
#define PF_MAX_FILE ((size_t)16 << 20)

struct pf_conf {
	int platform;    /* position in pf_platforms */
	long port;       /* members' port where the platform names none; 0: its own default */
	long port_base;  /* the k-th process on a host listens on port_base + k (host files) */
	char *rpc_layer; /* NULL: none */
};

/* One resolve of one platform. */
struct pf_run {
	const muster_host *host;
	muster_call *call;
	const struct pf_conf *conf;
	long port;             /* the entry's port, else the platform's default */
	struct env_reader env; /* notes what it reads for --explain */
};

/* Each platform's resolve(), in its own file, and the port of its members
 * where it names none (TensorFlow's customary 2222; on a TPU slice JAX's
 * coordinator port); in the order of the shipped chain (innermost
 * launcher first). */
#define PF_PLATFORMS(X)                                                                    \
	X(torchrun, 2222) X(launcher, 2222) X(kubeflow, 2222) X(trainer, 2222)                \
	X(mpi_operator, 2222) X(volcano, 2222) X(tpu, 8482) X(lws, 2222) X(skypilot, 2222)    \
	X(aws_batch, 2222) X(azureml, 2222) X(vertex, 2222) X(bare, 2222)

#define PF_DECLARE(name, port) muster_status pf_##name(struct pf_run *run);
PF_PLATFORMS(PF_DECLARE)
#undef PF_DECLARE

struct pf_platform {
	const char *name;
	muster_status (*resolve)(struct pf_run *run);
	long port; /* members' port where it names none and the entry sets none */
};
extern const struct pf_platform pf_platforms[];

/* read.c */
void pf_run_init(struct pf_run *run, const muster_host *host, muster_call *call,
                 const struct pf_conf *conf);
/* `status`, after fail() with the reason. */
#define pf_answer(run, status, ...) plugin_answer((run)->host, (run)->call, status, __VA_ARGS__)
#define pf_notfound(run, ...) pf_answer(run, MUSTER_STATUS_NOTFOUND, __VA_ARGS__)
#define pf_unavail(run, ...) pf_answer(run, MUSTER_STATUS_UNAVAIL, __VA_ARGS__)
/* unavail with the reader's last reason (a variable unset or bad). */
muster_status pf_env_failed(struct pf_run *run);
/* Which of `names` are set: a bit each; the first unset one in *missing. */
unsigned pf_which(struct pf_run *run, const char *const *names, const char **missing);
/* unavail: "MISSING is not set, but NAME is: PLATFORM sets them together",
 * NAME the first of `names` that is set. */
muster_status pf_half(struct pf_run *run, const char *platform, const char *const *names,
                      const char *missing);
/* This machine's host name, as a pod's is its name: 0, or -1 after fail(). */
int pf_hostname(struct pf_run *run, char *buf, size_t size);
/* A whole regular file: 1 read, 0 absent (ENOENT), -1 after fail()
 * naming it and `from` (the variable that named it, or NULL). */
int pf_read_file(struct pf_run *run, const char *path, const char *from, char **data,
                 size_t *len);

/* build.c */

/* A host as an address writes it: an IPv6 address in brackets (into buf
 * when it needs them). */
const char *pf_host_form(char *buf, size_t size, const char *host);
/* `n` members of `job`, the i-th at hosts[i]:port. */
int pf_add_hosts(struct pf_run *run, const char *job, const char *const *hosts, size_t n,
                 long port);
/* A member whose address the platform does not publish: a host under
 * unknown.invalid ("aws-batch-node-3.unknown.invalid", lib/address.h), so
 * that it keeps its place and what needs its address says so. */
void pf_placeholder(char *buf, size_t size, const char *stem, long n);

/* Members named after another, as the platforms name their pods:
 * "tj-node-0-0.tj" is the first of "tj-node-0-<i>.tj" (Trainer),
 * "pj-master-0" names "pj-worker-<i>" (PyTorchJob), "g-0.g.ns" names
 * "g-0-<i>.g.ns" (LeaderWorkerSet).  `label` is the length of the
 * host's first label, the rest (".tj") is kept. */
struct pf_name {
	const char *host;
	size_t label;
};
void pf_name_split(struct pf_name *n, const char *host);
/* Whether the first label ends with `suffix` (and is longer). */
int pf_label_ends(const struct pf_name *n, const char *suffix);
/* The first `keep` bytes of the first label, `middle`, the number `i`,
 * then the rest of the host, into buf. */
void pf_name_derive(char *buf, size_t size, const struct pf_name *n, size_t keep,
                    const char *middle, long i);

/* Processes a launcher started, `per_node` on each node, node 0 holding
 * rank 0 at the master's host; the others' hosts unknown (placeholders
 * "<stem>-<node>.unknown.invalid").  The k-th process of a node listens on
 * master_port + k (past 65535: on from 1024).  Job "worker", task r =
 * rank r, own task `rank`, placement processes. */
struct pf_procs {
	long world, per_node, rank;
	const char *master_host;
	long master_port;
	const char *stem;
};
muster_status pf_add_processes(struct pf_run *run, const struct pf_procs *p);

/* The own task, the master rule, the rpc layer and the placement: the end
 * of every success.  SUCCESS, or UNAVAIL as the builder refused. */
muster_status pf_finish(struct pf_run *run, const char *job, long index, int placement);
/* launcher.c: MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK, known to be
 * set, with what LOCAL_RANK, LOCAL_WORLD_SIZE and NODE_RANK say, as
 * processes whose other nodes are "<stem>-<node>.unknown.invalid". */
muster_status pf_env_contract(struct pf_run *run, const char *stem);

/* trainer.c: JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES and JAX_PROCESS_ID,
 * known to be set, one process a node, named after the coordinator's host
 * ("<job>-node-0-<i>.<job>") or at placeholders. */
muster_status pf_jax_contract(struct pf_run *run);

/* set_job_id(), for a platform that names no master port. */
int pf_job_id(struct pf_run *run, const char *id);

#endif
