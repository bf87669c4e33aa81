/*
 * muster — who is in my training cluster?
 *
 * The host API: open a context from a configuration file, resolve the
 * cluster through the configured chain of backends, read the immutable
 * result, and emit it in the formats launchers expect.
 *
 * Conventions (more in muster(3)):
 *  - Calls that can fail return 0 or a negative MUSTER_E* code.  When the
 *    caller passes a muster_error, it receives the code and a message naming
 *    the backend, the config file:line and the reason.  No global or
 *    thread-local error state exists.
 *  - Strings returned by accessors are borrowed from their result and live
 *    as long as it does.  Strings returned through a char ** out-parameter
 *    are the caller's, to be released with muster_free().
 *  - One context may be used by many threads at once.  Results are
 *    immutable and may be shared freely between threads.
 *  - The library prints nothing unless the host installs a log callback.
 */
#ifndef MUSTER_MUSTER_H
#define MUSTER_MUSTER_H

#include <stddef.h>

#include <muster/version.h>

#if defined(__GNUC__)
#define MUSTER_API __attribute__((visibility("default")))
#else
#define MUSTER_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes.  The numbers are part of the ABI and are never reused. */
enum muster_code {
	MUSTER_OK = 0,
	MUSTER_ENOMEM = -1,    /* out of memory */
	MUSTER_EINVAL = -2,    /* invalid argument */
	MUSTER_ECONFIG = -3,   /* configuration is invalid */
	MUSTER_EPLUGIN = -4,   /* a plugin could not be loaded */
	MUSTER_EABI = -5,      /* a plugin speaks another ABI */
	MUSTER_ENOTFOUND = -6, /* no backend recognised this environment */
	MUSTER_EUNAVAIL = -7,  /* a backend failed or was unreachable */
	MUSTER_ETRYAGAIN = -8, /* the cluster is not ready yet */
	MUSTER_ENOENT = -9,    /* no such job or task */
	MUSTER_ECONFLICT = -10 /* merged backends disagree */
};

/* A name for a code: "out of memory", "no such job or task", ... */
MUSTER_API const char *muster_strerror(int code);

/* The library's own version string, to compare with MUSTER_VERSION. */
MUSTER_API const char *muster_version(void);

/* The detail of a failure, filled by the call that failed. */
typedef struct muster_error {
	int code;
	char message[1024];
} muster_error;

/* Log levels, numbered as syslog's. */
enum muster_log_level {
	MUSTER_LOG_ERR = 3,
	MUSTER_LOG_WARNING = 4,
	MUSTER_LOG_NOTICE = 5,
	MUSTER_LOG_INFO = 6,
	MUSTER_LOG_DEBUG = 7
};

/* Called for each message at or below the chosen level; may be called from
 * any thread that uses the context.  `message` has no trailing newline. */
typedef void (*muster_log_fn)(int level, const char *message, void *data);

/* Options for muster_ctx_open().  Start from MUSTER_OPTIONS_INIT; fields
 * are only ever appended, and `size` tells the library which exist. */
typedef struct muster_options {
	size_t size;
	unsigned flags;       /* MUSTER_CTX_* */
	int log_level;        /* messages up to this level reach `log` */
	muster_log_fn log;    /* NULL: the library stays silent */
	void *log_data;
} muster_options;

/* As `strict = true`: an unknown key or plugin, or a plugin that cannot be
 * loaded, fails the open; a backend answering unavail or tryagain fails
 * the resolve even when a later entry would answer. */
#define MUSTER_CTX_STRICT 0x1u

#define MUSTER_OPTIONS_INIT { sizeof(muster_options), 0, MUSTER_LOG_WARNING, NULL, NULL }

typedef struct muster_ctx muster_ctx;
typedef struct muster_result muster_result;

/*
 * Open a context.  `config_path` NULL means $MUSTER_CONF when set (ignored
 * in setuid programs), else the installed default
 * (MUSTER_DEFAULT_CONFIG).  Drop-ins in "<config_path>.d/" are read after
 * it.  Plugins are loaded now; `options` may be NULL.
 */
MUSTER_API int muster_ctx_open(muster_ctx **out, const char *config_path,
                               const muster_options *options, muster_error *err);
MUSTER_API void muster_ctx_free(muster_ctx *ctx);

/* The configuration file the context was opened from. */
MUSTER_API const char *muster_ctx_config_path(const muster_ctx *ctx);

/* Introspection of the chain, for `muster plugins` and diagnostics. */
enum muster_plugin_state {
	MUSTER_PLUGIN_LOADED = 0,
	MUSTER_PLUGIN_BUILTIN = 1,
	MUSTER_PLUGIN_FAILED = 2
};

typedef struct muster_entry_info {
	const char *plugin;   /* plugin name from the config */
	const char *instance; /* entry name (defaults to the plugin name) */
	const char *version;  /* plugin's version, NULL when not loaded */
	unsigned abi_major, abi_minor; /* 0 when not loaded */
	const char *file;     /* shared object, NULL for a built-in */
	int state;            /* enum muster_plugin_state */
	const char *reason;   /* why it failed, NULL otherwise */
	const char *config_file; /* where the entry is declared */
	int config_line;
} muster_entry_info;

MUSTER_API size_t muster_ctx_entry_count(const muster_ctx *ctx);
MUSTER_API int muster_ctx_entry_info(const muster_ctx *ctx, size_t i, muster_entry_info *out);

/* How a watch (muster_watch_start) follows an entry. */
enum muster_entry_watch {
	MUSTER_ENTRY_WATCHED = 0, /* its plugin watches the backend (polled if that fails) */
	MUSTER_ENTRY_CONFIG = 1,  /* its answer changes only with the config file */
	MUSTER_ENTRY_POLLED = 2   /* resolved again every *interval_ms */
};
/* One of the above, with the entry's watch_interval_ms in *interval_ms
 * (may be NULL); MUSTER_ENOENT when its plugin did not load. */
MUSTER_API int muster_ctx_entry_watch(const muster_ctx *ctx, size_t i, long *interval_ms);

/* Run the chain.  The result is an immutable snapshot owned by the caller. */
MUSTER_API int muster_resolve(muster_result **out, muster_ctx *ctx, muster_error *err);
MUSTER_API void muster_result_free(muster_result *result);

/*
 * Why the chain answered as it did (`muster resolve --explain`): the
 * chain is run as muster_resolve() runs it, and what each entry answered
 * is recorded with the inputs (environment variables, files) its plugin
 * noted, secret values redacted.  *explain is set whenever the chain ran,
 * also when it failed (the return value, *out and `err` are then
 * muster_resolve()'s); NULL only when the arguments are wrong or memory
 * ran out.  Free it with muster_explain_free().
 */
typedef struct muster_explain muster_explain;
MUSTER_API int muster_resolve_explain(muster_result **out, muster_explain **explain,
                                      muster_ctx *ctx, muster_error *err);
MUSTER_API void muster_explain_free(muster_explain *explain);

/* One entry the chain ran, in chain order.  The chain stops at the entry
 * whose action ends it; of the entries after it, those that only detect
 * their environment (a `detect` list, or a plugin such as tf_config, the
 * schedulers' and the platforms') are asked too and listed with `after`
 * set, so that an explanation shows every environment that matched (the
 * innermost launcher answers, muster.conf(5)); their answers are not
 * used. */
typedef struct muster_explain_entry {
	size_t size;          /* sizeof(muster_explain_entry): set it before the call */
	const char *instance; /* the entry's name */
	const char *plugin;
	int code;             /* MUSTER_OK (success), MUSTER_ENOTFOUND, MUSTER_EUNAVAIL or
	                         MUSTER_ETRYAGAIN: what it answered */
	const char *reason;   /* why it did not succeed; NULL when it did */
	long ms;              /* how long it took */
	int used;             /* its answer is the result, or part of the merged result */
	size_t inputs;        /* inputs its plugin noted: muster_explain_input_at() */
	size_t dropped;       /* inputs noted past the limit (muster(3)), not kept */
	int after;            /* asked after the chain ended: whether it would have matched */
} muster_explain_entry;

#define MUSTER_EXPLAIN_ENTRY_INIT { sizeof(muster_explain_entry), NULL, NULL, 0, NULL, 0, 0, 0, 0, 0 }

MUSTER_API size_t muster_explain_entry_count(const muster_explain *explain);
/* Fills *out (its `size` set first); MUSTER_ENOENT past the last entry. */
MUSTER_API int muster_explain_entry_at(const muster_explain *explain, size_t i,
                                       muster_explain_entry *out);
/* The j-th input entry `i` noted, in the order first noted: its name (a
 * variable or a file) and value (NULL: unset or absent; "(redacted)" for
 * a secret).  MUSTER_ENOENT past the last. */
MUSTER_API int muster_explain_input_at(const muster_explain *explain, size_t i, size_t j,
                                       const char **name, const char **value);

/*
 * What a tryagain entry had built when it answered (plugin ABI 1.8): the
 * members that were ready, as tasks, and those it reported not ready
 * (muster_result_pending_at()); its source is the entry.  Kept only here,
 * never as the chain's answer: `muster status` shows a cluster on its way
 * up from it.  NULL for other answers, or when the entry built nothing.
 * It lives as long as `explain`.
 */
MUSTER_API const muster_result *muster_explain_partial(const muster_explain *explain, size_t i);

/* Which backend instance (or "a+b" for a merge) produced the result. */
MUSTER_API const char *muster_result_source(const muster_result *result);

/*
 * What the result's tasks are.  MUSTER_PLACEMENT_NODES: each task is a
 * node on which a launcher starts processes (static, tf_config, the pod
 * and VM backends).  MUSTER_PLACEMENT_PROCESSES: each task is one process
 * a scheduler started, its index its rank, several to a host (slurm, lsf,
 * pbs, mpi).  A merged result has its first contributor's placement, node
 * order and job id.
 */
#define MUSTER_PLACEMENT_NODES 0
#define MUSTER_PLACEMENT_PROCESSES 1
MUSTER_API int muster_result_placement(const muster_result *result);
/* The i-th host of the scheduler's node order, as the backend gave it;
 * NULL past the last (a backend that gave none has none). */
MUSTER_API const char *muster_result_node_order(const muster_result *result, size_t i);
/* The launcher's job id (SLURM_JOB_ID, LSB_JOBID, ...); NULL when none. */
MUSTER_API const char *muster_result_job_id(const muster_result *result);

/* Jobs, in the order the backend gave them. */
MUSTER_API size_t muster_result_job_count(const muster_result *result);
MUSTER_API const char *muster_result_job_name(const muster_result *result, size_t i);

/* Tasks of a job in index order; `i` counts real tasks (0..task_count-1).
 * A job is dense when its indices are exactly 0..n-1. */
MUSTER_API size_t muster_result_task_count(const muster_result *result, const char *job);
MUSTER_API int muster_result_job_is_dense(const muster_result *result, const char *job);
MUSTER_API int muster_result_task_at(const muster_result *result, const char *job, size_t i,
                                     long *index, const char **address);

/*
 * Members the backend knows of but that are not ready (a pod not Running,
 * an executor not yet registered), in the order it reported them: never
 * tasks of the cluster.  Its job, its index (-1: not known), its name in
 * the backend (NULL: none) and why it is not ready (NULL: not said);
 * MUSTER_ENOENT past the last.  A merge keeps every contributor's.  Past
 * 65536 members the rest are only counted (muster_result_pending_dropped).
 */
MUSTER_API size_t muster_result_pending_count(const muster_result *result);
MUSTER_API int muster_result_pending_at(const muster_result *result, size_t i, const char **job,
                                        long *index, const char **name, const char **why);
MUSTER_API size_t muster_result_pending_dropped(const muster_result *result);

/* The address of one task, NULL when the job or index does not exist. */
MUSTER_API const char *muster_result_address(const muster_result *result, const char *job,
                                             long index);

/*
 * The port a backend reserved for this process's own server (spark), -1
 * when none.  The result holds it bound, so no other process can take it;
 * release it right before binding it yourself (the window between the two
 * is the only race left; binding with SO_REUSEADDR narrows it further).
 * Releasing twice is harmless; muster_result_free() releases it too.
 */
MUSTER_API int muster_result_reserved_port(const muster_result *result);
MUSTER_API int muster_result_release_port(muster_result *result);

/* Self identity: NULL / -1 when unknown. */
MUSTER_API const char *muster_result_task_type(const muster_result *result);
MUSTER_API long muster_result_task_index(const muster_result *result);
MUSTER_API const char *muster_result_rpc_layer(const muster_result *result);
MUSTER_API const char *muster_result_environment(const muster_result *result);

/*
 * Accelerators of one task (`job` NULL: this process's own task), walked
 * by position: returns MUSTER_ENOENT past the last kind.  A task with no
 * accelerators has none.
 */
MUSTER_API int muster_result_accelerator_at(const muster_result *result, const char *job,
                                            long index, size_t i, const char **kind,
                                            long *count);

/*
 * The device ids one task should use (`job` NULL: this process's own
 * task), e.g. for its CUDA_VISIBLE_DEVICES: *kind names their kind and
 * *ids points at *n ids inside the result.  MUSTER_ENOENT when the task
 * does not exist or its backend gave no ids.
 */
MUSTER_API int muster_result_accelerator_ids(const muster_result *result, const char *job,
                                             long index, const char **kind, const int **ids,
                                             size_t *n);

/*
 * The master URL of a task (TensorFlow's master()), by the rules of the
 * backend that answered:
 * `task_type` NULL and `task_id` < 0 mean "not given" (Python's None);
 * `rpc_layer` NULL means not given, "" means no prefix.  On success *out is
 * "grpc://host:port", "host:port" or "" (unknowable).
 */
MUSTER_API int muster_result_master_url(char **out, const muster_result *result,
                                        const char *task_type, long task_id,
                                        const char *rpc_layer, muster_error *err);

/* {"cluster": ..., "task": ..., "rpc_layer": ..., "environment": ...,
 *  "accelerators": ..., "accelerator_ids": {"JOB": {"INDEX": [id, ...]}}}:
 *  dense jobs as arrays, sparse as objects. */
MUSTER_API int muster_result_to_json(char **out, const muster_result *result, muster_error *err);

/* The TF_CONFIG a task should get, byte-identical to what the Kubeflow
 * training operator writes (compact, jobs sorted, "environment":"cloud").
 * MUSTER_TF_CONFIG_SPARSE selects its dynamic-worker form. */
#define MUSTER_TF_CONFIG_SPARSE 0x1u
MUSTER_API int muster_result_to_tf_config(char **out, const muster_result *result,
                                          const char *task_type, long task_id, unsigned flags,
                                          muster_error *err);

/* The accelerator map of one task as JSON {"GPU": 8}; `job` NULL: self. */
MUSTER_API int muster_result_accelerators_json(char **out, const muster_result *result,
                                               const char *job, long index, muster_error *err);

/*
 * Launch contracts: what a framework's processes read to find each other.
 *
 * A launch's units are the tasks of the jobs that train (`jobs`, a
 * comma-separated list; NULL: every job but "ps" and "evaluator"): the
 * master task first (the chief's task 0, else the "master" job's, else
 * task 0 of the first training job), then the others in the cluster's job
 * order, then by index.  Under MUSTER_PLACEMENT_NODES each unit is a node
 * on which nproc_per_node processes run; under MUSTER_PLACEMENT_PROCESSES
 * each unit is one process a scheduler started (nproc_per_node > 1: that
 * task's own share of its host), and the nodes are the distinct hosts, in
 * the scheduler's order.  Ranks are prefix sums of the units' process
 * counts; local ranks, of the counts of the units before on the same node.
 * muster(3) has the whole rule.  Start from MUSTER_LAUNCH_INIT; fields
 * are only ever appended.
 */
typedef struct muster_launch {
	size_t size;
	const char *framework; /* env: "tensorflow", "pytorch", "jax";
	                          hostfile: "openmpi", "mpich", "horovod", "deepspeed" */
	const char *task_type; /* NULL: this process's own task */
	long task_id;          /* < 0: this process's own task */
	const char *jobs;      /* the jobs that train; NULL: all but ps and evaluator */
	long nproc_per_node;   /* processes per unit, 1..MUSTER_NPROC_PER_NODE_MAX, or
	                          MUSTER_NPROC_GPU */
	long local_rank;       /* muster_launch_env(): which of the own unit's processes,
	                          0..its count - 1 (its LOCAL_RANK under nodes placement) */
	const char *local_device_ids; /* jax: this process's devices ("0,1"); NULL: unset */
	long local_gpus;       /* this machine's GPUs: with MUSTER_NPROC_GPU, the count of a
	                          unit the backend gives none for; 0: unknown */
} muster_launch;

/* The most processes per node a launch takes: node rank times it stays far
 * inside a long. */
#define MUSTER_NPROC_PER_NODE_MAX 65536L
/* nproc_per_node: each unit runs as many processes as it has GPUs. */
#define MUSTER_NPROC_GPU (-1L)

#define MUSTER_LAUNCH_INIT { sizeof(muster_launch), NULL, NULL, -1, NULL, 1, 0, NULL, 0 }

/*
 * The launch plan: units, nodes, ranks, master and port, computed once
 * from a result and a launch; every output of the launch reads it.  The
 * plan holds a reference to the result (free either first).  Fails with
 * MUSTER_EINVAL for a bad launch, MUSTER_ECONFIG for a bad
 * MUSTER_MASTER_PORT, MUSTER_ENOENT
 * when the cluster has no training task or a unit no GPU to count.  A
 * plan for tensorflow has no units: its env is the task's TF_CONFIG.
 */
typedef struct muster_plan muster_plan;
MUSTER_API int muster_launch_plan(muster_plan **out, const muster_result *result,
                                  const muster_launch *launch, muster_error *err);
MUSTER_API void muster_plan_free(muster_plan *plan);

/*
 * The environment of one process of the own unit, `proc` from 0 to
 * muster_plan_nproc() - 1, in the order a launcher sets it: a
 * NULL-terminated array of "NAME=value" strings, released with one
 * muster_free(*out).  tensorflow: TF_CONFIG; pytorch: MASTER_ADDR,
 * MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK,
 * NODE_RANK and, where they are true for a torchrun on this node (one unit
 * per node, every unit the same count), torchrun's arguments as it reads
 * them from the environment (PET_NNODES, PET_NODE_RANK,
 * PET_NPROC_PER_NODE, PET_MASTER_ADDR, PET_MASTER_PORT); jax:
 * JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, JAX_PROCESS_ID and
 * JAX_LOCAL_DEVICE_IDS (`local_device_ids` when given, else the local
 * rank where each process of the node owns one of its GPUs).  Each
 * framework's list ends with CUDA_VISIBLE_DEVICES when the result gives
 * GPU ids: the node's, in local-rank order, so that a process's own GPU is
 * the one at its LOCAL_RANK.  MUSTER_ENOENT names what is missing: the
 * task, or dense ranks in a sparse job.
 */
MUSTER_API int muster_plan_env(char ***out, const muster_plan *plan, long proc,
                               const char *local_device_ids, muster_error *err);

/*
 * A hostfile for an MPI-style launcher: one line per host of the plan's
 * nodes, in node order, its slots the processes on it: "HOST slots=N"
 * (openmpi, deepspeed) or "HOST:N" (mpich, horovod).  `flavor` NULL: the
 * launch's framework.
 */
MUSTER_API int muster_plan_hostfile(char **out, const muster_plan *plan, const char *flavor,
                                    muster_error *err);

/* The plan's numbers; -1 (NULL) where they do not apply: a tensorflow
 * plan, or no own unit. */
MUSTER_API long muster_plan_world_size(const muster_plan *plan);
MUSTER_API size_t muster_plan_node_count(const muster_plan *plan);
/* Node i's host (as the addresses write it) and process count;
 * MUSTER_ENOENT past the last. */
MUSTER_API int muster_plan_node_at(const muster_plan *plan, size_t i, const char **host,
                                   long *nproc);
/* The own unit's node, first global rank, first local rank and processes. */
MUSTER_API long muster_plan_node_rank(const muster_plan *plan);
MUSTER_API long muster_plan_first_rank(const muster_plan *plan);
MUSTER_API long muster_plan_first_local_rank(const muster_plan *plan);
MUSTER_API long muster_plan_nproc(const muster_plan *plan);
/* MASTER_ADDR (unit 0's host, an IPv6 address without brackets) and
 * MASTER_PORT. */
MUSTER_API const char *muster_plan_master_host(const muster_plan *plan);
MUSTER_API int muster_plan_master_port(const muster_plan *plan);
/* What the plan assumed, to be said once ("assuming every node ..."), or
 * NULL. */
MUSTER_API const char *muster_plan_note(const muster_plan *plan);

/* muster_launch_plan(), muster_plan_env() of launch->local_rank, free. */
MUSTER_API int muster_launch_env(char ***out, const muster_result *result,
                                 const muster_launch *launch, muster_error *err);

/* muster_launch_plan(), muster_plan_hostfile(), free.  The task fields
 * are not used. */
MUSTER_API int muster_launch_hostfile(char **out, const muster_result *result,
                                      const muster_launch *launch, muster_error *err);

/*
 * The network path to peers: which local interface reaches them.  Each
 * host (a name or a numeric address) is looked up here as a connecting
 * client would (getaddrinfo(), any family), all of them at once and within
 * `timeout_ms`: a lookup still running then is abandoned, its thread left
 * to end on its own, and that host reported as timed out.  The first
 * address of each is routed by the kernel (a route lookup over rtnetlink,
 * as `ip route get` asks), giving the interface and source address a
 * connection to it would use.  Free with muster_netpath_free().
 */
typedef struct muster_netpath muster_netpath;

/* One host of a probe, owned by it; fields are only ever appended. */
typedef struct muster_netpeer {
	const char *host;     /* as given */
	int status;           /* MUSTER_OK; MUSTER_ENOENT: the name does not
	                         resolve here; MUSTER_EUNAVAIL: the lookup failed
	                         or timed out, or no route reaches the address */
	const char *problem;  /* why, when status is not MUSTER_OK; else NULL */
	const char *address;  /* the first address it resolved to; NULL: none */
	size_t address_count; /* how many it resolved to */
	const char *ifname;   /* the interface the kernel routes it through */
	const char *source;   /* the local address a connection would use */
	unsigned flags;       /* MUSTER_NETPEER_* */
} muster_netpeer;

/* The address is this machine's own (the kernel's route is "local"). */
#define MUSTER_NETPEER_LOCAL 0x1u
/* The address is a loopback one (127.0.0.0/8, ::1). */
#define MUSTER_NETPEER_LOOPBACK 0x2u

MUSTER_API int muster_netpath_probe(muster_netpath **out, const char *const *hosts, size_t n,
                                    long timeout_ms, muster_error *err);
MUSTER_API void muster_netpath_free(muster_netpath *path);
MUSTER_API size_t muster_netpath_count(const muster_netpath *path);
/* The i-th host, in the order given; NULL past the last. */
MUSTER_API const muster_netpeer *muster_netpath_peer(const muster_netpath *path, size_t i);
/*
 * The one interface whose routes reach every host that is not this
 * machine, and its source address: 0 with *ifname and *source set, or
 * MUSTER_ENOENT (both NULL) when a host failed, the hosts are reached
 * through different interfaces, or every host is this machine.  *why says
 * which, in a sentence naming the hosts, either way.  Any pointer may be
 * NULL.
 */
MUSTER_API int muster_netpath_interface(const muster_netpath *path, const char **ifname,
                                        const char **source, const char **why);

/*
 * The network path of a plan's own node: the peers whose routes decide
 * its interface (on the master's node the other nodes, at most 64 spread
 * over the list; elsewhere the master) probed as muster_netpath_probe()
 * does, within `timeout_ms`.  From then on muster_plan_env() adds, for
 * pytorch, GLOO_SOCKET_IFNAME, TP_SOCKET_IFNAME, NCCL_SOCKET_IFNAME (as
 * "=IF", NCCL's exact match) and Open MPI's OMPI_MCA_btl_tcp_if_include
 * and OMPI_MCA_oob_tcp_if_include; for jax the NCCL and Open MPI ones:
 * each unless this process's environment has it (an Open MPI include
 * also when it has the matching exclude).  On the master's node, when the
 * master's host resolves here to a loopback address, MASTER_ADDR and
 * PET_MASTER_ADDR (jax: JAX_COORDINATOR_ADDRESS's host) become the
 * interface's address.  Nothing is probed for a tensorflow plan, a plan
 * without its own unit, or a configuration with choose_interface = false.
 * Not while another thread reads the plan.  0, or MUSTER_ENOMEM.
 */
MUSTER_API int muster_plan_probe_network(muster_plan *plan, long timeout_ms, muster_error *err);
/* The probe, the master's host first, then the peers; NULL before one. */
MUSTER_API const muster_netpath *muster_plan_netpath(const muster_plan *plan);
/* A sentence on what was chosen ("interface eth1: the kernel routes ...")
 * or why nothing was ("no interface variable: ..."); NULL before a probe. */
MUSTER_API const char *muster_plan_network_note(const muster_plan *plan);

/*
 * The accelerators of this machine.  `sysroot` stands for "/" (its sys,
 * dev and proc are read, NVML is not used); NULL: $MUSTER_SYSROOT when set,
 * else the real machine.  NVIDIA GPUs come from the driver's /proc; NVML
 * is loaded only where /proc shows none, and for the MIG devices that
 * CUDA_VISIBLE_DEVICES names ("MIG-..."): MUSTER_EUNAVAIL when those need
 * NVML and it cannot be loaded (or under a sysroot).
 * CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES
 * filter what is found, by index or UUID.
 */
typedef struct muster_devices muster_devices;
MUSTER_API int muster_local_devices(muster_devices **out, const char *sysroot,
                                    muster_error *err);
MUSTER_API void muster_devices_free(muster_devices *devices);
MUSTER_API size_t muster_devices_count(const muster_devices *devices);
/* One device: its kind ("GPU", "TPU", "HPU", "NPU"), its vendor ("nvidia",
 * "amd", "google", "habana", "intel", ...) and its id: its index among all
 * of the vendor's devices on the machine, whatever the visible-devices
 * variables hold or however they name it (by UUID too).  NVIDIA's index
 * is in PCI bus order (NVML's), which CUDA_VISIBLE_DEVICES follows only
 * under CUDA_DEVICE_ORDER=PCI_BUS_ID; AMD's is in KFD topology order, as
 * ROCR_VISIBLE_DEVICES takes it; other kinds are numbered as the kernel
 * lists them (the N of /dev/accelN).  MUSTER_ENOENT past the last. */
MUSTER_API int muster_devices_at(const muster_devices *devices, size_t i, const char **kind,
                                 const char **vendor, const char **id);
/* Counts by kind as JSON, e.g. {"GPU":4}; {} when there are none. */
MUSTER_API int muster_devices_to_json(char **out, const muster_devices *devices,
                                      muster_error *err);

/*
 * This machine's devices as muster_local_devices() finds them, with where
 * each sits (from sysfs): its NUMA node and that node's CPUs, the CPUs of
 * its package, the nearest network interface (the one sharing the longest
 * PCI path) and the link level between each two devices.  With
 * MUSTER_TOPOLOGY_NVLINK, on the real machine, NVIDIA GPUs joined by
 * NVLink (directly or through NVSwitches) are looked for through NVML,
 * which takes tens of milliseconds to start.
 */
#define MUSTER_TOPOLOGY_NVLINK 0x1u
MUSTER_API int muster_local_topology(muster_devices **out, const char *sysroot,
                                     unsigned flags, muster_error *err);
/* Where one device sits; a field is NULL (numa_node -1) when unknown.  Set
 * `size` to sizeof(muster_device_topology): fields are only appended. */
typedef struct muster_device_topology {
	size_t size;
	const char *pci_bus_id;  /* "0000:07:00.0", as sysfs names it */
	const char *uuid;
	long numa_node;          /* -1: none or unknown */
	const char *cpus;        /* the CPUs of its node, "0-51,104-155"; without
	                            a node, those sysfs calls local to it */
	const char *socket_cpus; /* the CPUs of the nodes of its package */
	const char *nic;         /* the nearest network interface, "ib0" */
	const char *nic_link;    /* the level of the path to it, as below */
} muster_device_topology;
#define MUSTER_DEVICE_TOPOLOGY_INIT \
	{ sizeof(muster_device_topology), NULL, NULL, -1, NULL, NULL, NULL, NULL }
/* The strings stay valid as long as `devices`.  MUSTER_ENOENT past the last. */
MUSTER_API int muster_devices_topology_at(const muster_devices *devices, size_t i,
                                          muster_device_topology *out);
/* The link level between devices i and j in NCCL's words: "X" (the same
 * device), "NVL" (NVLink), "PIX" (one PCIe switch between them), "PXB"
 * (several), "PHB" (through the CPU's host bridge), "SYS" (across NUMA
 * nodes); NULL when unknown (no PCI path, or not from
 * muster_local_topology()).  "NVL" appears only where NVML was asked. */
MUSTER_API const char *muster_devices_link(const muster_devices *devices, size_t i, size_t j);
/* 1 when NVLinks were looked for (MUSTER_TOPOLOGY_NVLINK and NVML loaded). */
MUSTER_API int muster_devices_nvlink_checked(const muster_devices *devices);
/* The topology as JSON: {"devices":[{"kind","vendor","id","pci_bus_id",
 * "uuid","numa_node","cpus","socket_cpus","nic","nic_link","links"}],
 * "nvlink_checked"}, "links" the levels to every device in list order. */
MUSTER_API int muster_topology_to_json(char **out, const muster_devices *devices,
                                       muster_error *err);

/*
 * The CPUs (a list, "0-7,16-23"; muster_free() it) for a process that
 * drives the n devices at `indices` of a muster_local_topology() list, as
 * torchrun's --numa-binding chooses them: MUSTER_BIND_NODE, each device's
 * NUMA node; MUSTER_BIND_SOCKET, the nodes of its package;
 * MUSTER_BIND_EXCLUSIVE, its share of its node's physical cores, which
 * are divided evenly (in order, the first devices getting one more when
 * they do not divide) among the devices of its kind on that node.  Only
 * CPUs the calling thread may run on count.  MUSTER_ENOTFOUND when sysfs
 * does not tell a device's node (or package); MUSTER_ENOENT when a device
 * would get no CPU.
 */
#define MUSTER_BIND_NODE 1
#define MUSTER_BIND_SOCKET 2
#define MUSTER_BIND_EXCLUSIVE 3
MUSTER_API int muster_devices_cpus(char **out, const muster_devices *devices,
                                   const size_t *indices, size_t n, int mode, muster_error *err);

/*
 * Watching: the chain re-run whenever a backend reports a change (or at
 * its entry's `watch_interval_ms` when its plugin cannot watch) and
 * whenever the config file or a drop-in is edited.  A change is delivered
 * once the cluster has been quiet for `settle_ms`, so a burst of events is
 * one change.  A failed re-run or a broken config is logged once and the
 * last good result stays; only muster_watch_stop() ends a watch.
 */
typedef struct muster_watch muster_watch;
typedef struct muster_change muster_change;

/* What a watch tells its observer (muster_watch_options.observe). */
enum muster_watch_event_kind {
	MUSTER_WATCH_RESOLVED = 0,    /* the chain ran again: `seconds`, `code` */
	MUSTER_WATCH_RECONNECTED = 1, /* an entry's watch opened its broken stream again */
	MUSTER_WATCH_RESYNCED = 2     /* an entry's watch could not follow on and listed afresh */
};
typedef struct muster_watch_event {
	size_t size;          /* sizeof(muster_watch_event) */
	int kind;             /* enum muster_watch_event_kind */
	const char *instance; /* the entry (RECONNECTED, RESYNCED); NULL for RESOLVED */
	double seconds;       /* RESOLVED: how long the chain took */
	int code;             /* RESOLVED: 0, or the code of the chain's failure */
} muster_watch_event;
/* Called from the watch's own threads, several at once: it must be quick,
 * must not block, and must not call the watch.  `event` lives for the call. */
typedef void (*muster_watch_observe_fn)(const muster_watch_event *event, void *data);

typedef struct muster_watch_options {
	size_t size;
	long settle_ms; /* quiet time before a change is delivered; 0: at once */
	muster_watch_observe_fn observe; /* NULL: nobody observes */
	void *observe_data;
} muster_watch_options;

#define MUSTER_WATCH_OPTIONS_INIT { sizeof(muster_watch_options), 100, NULL, NULL }

/* Starts watching the context's chain and config file.  The context must
 * outlive the watch; the first change delivered is the current result,
 * every task of it "added". */
MUSTER_API int muster_watch_start(muster_watch **out, muster_ctx *ctx,
                                  const muster_watch_options *options, muster_error *err);
/* Readable while a change waits for muster_watch_next(): for poll(). */
MUSTER_API int muster_watch_fd(const muster_watch *watch);
/* The next change, waiting up to `timeout_ms` (-1: for ever).  1 with
 * *out set (free it with muster_change_free), 0 when the time ran out. */
MUSTER_API int muster_watch_next(muster_watch *watch, long timeout_ms, muster_change **out,
                                 muster_error *err);
/* Stops every thread of the watch and frees it. */
MUSTER_API void muster_watch_stop(muster_watch *watch);

/* What changed between two delivered results, task by task. */
enum muster_change_kind {
	MUSTER_CHANGE_ADDED = 0,
	MUSTER_CHANGE_REMOVED = 1,
	MUSTER_CHANGE_MOVED = 2,       /* same task, another address */
	MUSTER_CHANGE_ACCELERATORS = 3 /* same task, other accelerators */
};

/* The new result, owned by the change. */
MUSTER_API const muster_result *muster_change_result(const muster_change *change);
MUSTER_API size_t muster_change_count(const muster_change *change, int kind);
/* The i-th task of a kind: its job, index and address (the old address
 * for a removed task, the new one otherwise); MUSTER_ENOENT past the end. */
MUSTER_API int muster_change_at(const muster_change *change, int kind, size_t i,
                                const char **job, long *index, const char **address);
/* The result's JSON with "added", "removed", "moved" and
 * "accelerators_changed" lists of {"task": "JOB:INDEX", "address": ...}. */
MUSTER_API int muster_change_to_json(char **out, const muster_change *change, muster_error *err);
MUSTER_API void muster_change_free(muster_change *change);

/* Release a string the library handed to the caller. */
MUSTER_API void muster_free(void *p);

#ifdef __cplusplus
}
#endif

#endif /* MUSTER_MUSTER_H */
