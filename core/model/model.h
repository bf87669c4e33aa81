/* The resolved cluster: jobs → tasks → address, self identity and
 * accelerators.  Built once by a builder, immutable afterwards. */
#ifndef MUSTER_MODEL_H
#define MUSTER_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <muster/muster.h>
#include <muster/plugin.h>

#include "arena.h"
#include "nameindex.h"

/* A job's tasks are two parallel arrays: the addresses, and the indices
 * only once some task's index is not its position.  A dense job, the
 * usual one, then costs a pointer per task rather than a pointer and a
 * long: a third less memory for a large cluster, and a third fewer pages
 * a resolve has to fault in. */
struct job {
	const char *name;
	const char **address; /* per task, by index once finalised */
	long *index;          /* per task; NULL: task i has index i */
	size_t ntasks, cap;   /* cap: room in address (and index, when there) */
	long highest;       /* the largest index added so far, -1: none */
	int in_order;       /* every add so far was past the highest index before it */
	int merged_as_map;  /* merge: some contributor was sparse (see merge.c) */
};

/* One accelerator kind of one task: 32 bytes, as a large cluster has one
 * or two of these per task. */
struct accel {
	long index;
	const char *kind;
	const int *ids;     /* `count` device ids in the arena; NULL: not known */
	uint32_t job;       /* position in result->jobs */
	int32_t count;
};

/* A member a backend reported as known but not ready (add_pending): its
 * strings in the result's arena. */
struct pending {
	const char *job;
	const char *name; /* NULL: none given */
	const char *why;  /* NULL: none given */
	long index;       /* -1: not known */
};

/* The most pending members a result keeps; the rest are counted. */
#define PENDING_MAX 65536
/* The longest name or reason kept, in bytes; longer ones are cut. */
#define PENDING_TEXT_MAX 256

struct muster_result {
	struct arena arena;
	struct job *jobs;
	size_t njobs, jobs_cap;
	struct name_index job_index; /* job name -> position in jobs */
	struct accel *accels; /* sorted by (job, index, kind) once finalised */
	size_t naccels, accels_cap;

	const char *task_type;  /* NULL: unknown */
	long task_index;        /* -1: unknown */
	const char *rpc_layer;  /* NULL: unknown */
	const char *environment;
	const char *master;     /* session_master, or Simple's stored master */
	int master_rule;        /* enum muster_master_rule */
	const char *source;     /* "instance" or "a+b" after a merge */
	int placement;          /* MUSTER_PLACEMENT_* */
	const char **node_order; /* the scheduler's host order, in the arena */
	size_t nnode_order;
	const char *job_id;     /* the launcher's; NULL: none */
	long master_port;       /* the config's master_port, set by the chain; 0: none */
	int no_interface;       /* the config's choose_interface = false, set by the chain */
	char *union_source;     /* a merge's growing "a+b+...", which source shows */
	size_t union_source_len, union_source_cap;
	struct pending *pending; /* in the order reported */
	size_t npending, pending_cap;
	size_t pending_dropped;  /* reported past PENDING_MAX */
	int held_fd;            /* reserved port's socket, -1: none (atomic) */
	int held_port;
	int refs;               /* a watch shares a result with its reader (atomic) */

	/* A merged result answers master() without a task the way its first
	 * contributor would (TF's UnionClusterResolver delegates). */
	struct muster_result *first;
};

/* 0 when every task has an address; else MUSTER_EUNAVAIL, saying that
 * `what` ("a cluster spec", "TF_CONFIG", "a hostfile") needs them and
 * naming the first tasks whose host is a placeholder (lib/address.h). */
int model_refuse_placeholders(const muster_result *r, const char *what, muster_error *err);

struct muster_result *model_new(void);
/* One more owner: muster_result_free() frees at the last. */
struct muster_result *model_ref(struct muster_result *r);

/* Appends an empty job named `name`, which the caller keeps alive as long
 * as the result; NULL when out of memory or beyond UINT32_MAX jobs. */
struct job *model_add_job(struct muster_result *r, const char *name);
/* Look a job up by name (hashed, O(1)); NULL when absent. */
struct job *model_job(const struct muster_result *r, const char *name);
size_t model_job_pos(const struct muster_result *r, const struct job *job);

/* The index of a job's i-th task. */
static inline long model_task_index(const struct job *job, size_t i)
{
	return job->index ? job->index[i] : (long)i;
}

/* The address of the task with `index`, NULL when absent (O(1) in a dense
 * job, a binary search otherwise). */
const char *model_address(const struct job *job, long index);
/* The position of the task with `index` in its job's arrays; SIZE_MAX
 * when absent. */
size_t model_task_pos(const struct job *job, long index);
/* Room for `need` tasks in both arrays; -1 when out of memory. */
int model_job_reserve(struct job *job, size_t need);
/* Gives the job its index array (the positions so far), as a task whose
 * index is not its position comes; -1 when out of memory. */
int model_job_index(struct job *job);
/* Appends one task (growing the arrays); -1 when out of memory. */
int model_job_add(struct job *job, long index, const char *address);
/* Drops the index array of a sorted job whose indices are 0..n-1 after all. */
void model_job_settle(struct job *job);
int model_job_dense(const struct job *job);
/* Highest index + 1: TF's "padded length". */
long model_job_padded(const struct job *job);
/* pending.c: appends a copy of `p` (its strings already in r's arena, or
 * kept alive with it), or counts it past PENDING_MAX; -1 when out of
 * memory. */
int model_pending_push(struct muster_result *r, const struct pending *p);
/* qsort() order of accelerators: by job, index, then kind. */
int model_accel_cmp(const void *a, const void *b);
/* The accelerators of one task: a run of r->accels, possibly empty. */
const struct accel *model_accels(const struct muster_result *r, size_t job, long index,
                                 size_t *count);

#endif
