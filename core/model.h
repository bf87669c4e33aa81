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

struct task {
	long index;
	const char *address;
};

struct job {
	const char *name;
	struct task *tasks; /* sorted by index, unique, once finalised */
	size_t ntasks, cap;
	int in_order;       /* every add so far had a larger index than the last */
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
	char *union_source;     /* a merge's growing "a+b+...", which source shows */
	size_t union_source_len, union_source_cap;
	int held_fd;            /* reserved port's socket, -1: none (atomic) */
	int held_port;
	int refs;               /* a watch shares a result with its reader (atomic) */

	/* A merged result answers master() without a task the way its first
	 * contributor would (TF's UnionClusterResolver delegates). */
	struct muster_result *first;
};

struct muster_result *model_new(void);
/* One more owner: muster_result_free() frees at the last. */
struct muster_result *model_ref(struct muster_result *r);

/* Ensures room for `need` elements of `size` bytes in *array; -1 when out of
 * memory.  Capacities double, so appends cost O(1) amortised. */
int model_reserve(void **array, size_t *cap, size_t need, size_t size);
/* Appends an empty job named `name`, which the caller keeps alive as long
 * as the result; NULL when out of memory or beyond UINT32_MAX jobs. */
struct job *model_add_job(struct muster_result *r, const char *name);
/* Look a job up by name (hashed, O(1)); NULL when absent. */
struct job *model_job(const struct muster_result *r, const char *name);
size_t model_job_pos(const struct muster_result *r, const struct job *job);
/* The task with `index`, NULL when absent (binary search). */
const struct task *model_task(const struct job *job, long index);
int model_job_dense(const struct job *job);
/* Highest index + 1: TF's "padded length". */
long model_job_padded(const struct job *job);
/* qsort() order of accelerators: by job, index, then kind. */
int model_accel_cmp(const void *a, const void *b);
/* The accelerators of one task: a run of r->accels, possibly empty. */
const struct accel *model_accels(const struct muster_result *r, size_t job, long index,
                                 size_t *count);

#endif
