/*
 * muster plugin SDK.
 *
 * A plugin is a shared object that exports exactly one symbol,
 * muster_plugin_entry_v1, which returns a read-only descriptor.  The core
 * hands the plugin a table of host services (logging, errors, config
 * getters over the plugin's own config group, the result builder); plugins
 * never link libmuster and never see libconfig types, so they work however
 * the host loaded libmuster (RTLD_LOCAL included).
 *
 * Rules a plugin MUST follow:
 *  - keep all state in what open() returns; no mutable globals;
 *  - start no thread and install no handler that close() cannot undo;
 *  - honour the call's time budget (host->remaining_ms) on every network
 *    operation;
 *  - never put secrets (tokens, keys) in log lines or error messages.
 *
 * ABI promise: fields of muster_plugin and muster_host are only ever
 * appended (MUSTER_PLUGIN_ABI_MINOR grows); an incompatible change bumps
 * MUSTER_PLUGIN_ABI_MAJOR and with it the entry symbol's name.
 */
#ifndef MUSTER_PLUGIN_H
#define MUSTER_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <muster/version.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MUSTER_PLUGIN_EXPORT __attribute__((visibility("default")))
#define MUSTER_PLUGIN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MUSTER_PLUGIN_EXPORT
#define MUSTER_PLUGIN_PRINTF(f, a)
#endif

/* What a backend answers, in NSS's vocabulary. */
typedef enum muster_status {
	MUSTER_STATUS_SUCCESS = 0,  /* here is the cluster */
	MUSTER_STATUS_NOTFOUND = 1, /* not my kind of environment */
	MUSTER_STATUS_UNAVAIL = 2,  /* backend unreachable, broken or failed */
	MUSTER_STATUS_TRYAGAIN = 3  /* reachable, but the cluster is not ready */
} muster_status;

/* Kinds of config values seen through the host's getters. */
enum muster_cfg_type {
	MUSTER_CFG_NONE = 0,
	MUSTER_CFG_INT = 1,    /* libconfig int and int64 */
	MUSTER_CFG_FLOAT = 2,
	MUSTER_CFG_STRING = 3,
	MUSTER_CFG_BOOL = 4,
	MUSTER_CFG_GROUP = 5,  /* { name = value; ... } */
	MUSTER_CFG_ARRAY = 6,  /* [ scalar, ... ] */
	MUSTER_CFG_LIST = 7    /* ( value, ... ) */
};

/* How the master URL is formed for a result: TensorFlow's resolvers differ
 * and a backend picks the one it mirrors. */
enum muster_master_rule {
	/* TFConfigClusterResolver: session_master verbatim; "" for a cluster of
	 * at most one task; each argument overrides the own value separately;
	 * an empty rpc_layer argument means no prefix. */
	MUSTER_MASTER_TF_CONFIG = 0,
	/* SimpleClusterResolver: a task's address only when both type and id
	 * are given, else the stored master string; `rpc or own`. */
	MUSTER_MASTER_SIMPLE = 1,
	/* Kubernetes/GCE/Slurm: type and id default separately to the own
	 * task; "" when either stays unknown; `rpc or own`. */
	MUSTER_MASTER_TASK = 2
};

/* Plugin flags. */
#define MUSTER_PLUGIN_THREADSAFE 0x1u /* resolve() may run concurrently on one state */
/* resolve() answers the same until the config changes: a watch neither
 * polls the entry nor needs its watch(). */
#define MUSTER_PLUGIN_CONFIG_ONLY 0x2u
/* ABI 1.7: the entry detects its environment (tf_config, the schedulers,
 * the platform backends) rather than reading what its config names.  With
 * MUSTER_NO_DETECT=1 the core answers notfound for it without calling
 * resolve(), so the chain falls to its explicit entries. */
#define MUSTER_PLUGIN_DETECTS 0x4u

/* ABI 1.7: what a result's tasks are (set_placement).  The same numbers
 * as muster.h's, which repeats these definitions. */
#define MUSTER_PLACEMENT_NODES 0     /* nodes on which `muster run` starts processes */
#define MUSTER_PLACEMENT_PROCESSES 1 /* processes a scheduler started, in rank order */

/* ABI 1.8: what a watch() saw of its backend (watch_event). */
#define MUSTER_WATCH_EVENT_RECONNECT 1 /* its stream broke and was opened again */
#define MUSTER_WATCH_EVENT_RESYNC 2    /* it could not follow on and listed afresh */

#define MUSTER_PLUGIN_ABI_MAJOR 1
#define MUSTER_PLUGIN_ABI_MINOR 8

/* Opaque handles owned by the core. */
typedef struct muster_plugin_ctx muster_plugin_ctx; /* one chain entry */
typedef struct muster_call muster_call;             /* one resolve of that entry */
typedef struct muster_cfg muster_cfg;               /* one node of the entry's config */
typedef struct muster_watcher muster_watcher;       /* one running watch of that entry */

/* Host services.  A plugin must check struct_size before using a field
 * appended after the ABI minor it was built for. */
typedef struct muster_host {
	uint32_t abi_major;
	uint32_t abi_minor;
	uint32_t struct_size;

	/* Logging, prefixed by the core with "plugin(instance): ". */
	void (*log)(muster_plugin_ctx *pc, int level, const char *fmt, ...) MUSTER_PLUGIN_PRINTF(3, 4);

	/* The entry's config group; an empty group when the config has none. */
	const muster_cfg *(*cfg_root)(muster_plugin_ctx *pc);
	/* Member of a group by name (NULL when absent), and the member-name check:
	 * cfg_get marks the member as used, so the core can warn about unknown
	 * keys (with file:line) after open() returns. */
	const muster_cfg *(*cfg_get)(const muster_cfg *group, const char *name);
	int (*cfg_type)(const muster_cfg *node);
	size_t (*cfg_count)(const muster_cfg *node);   /* elements of group/array/list */
	const muster_cfg *(*cfg_at)(const muster_cfg *node, size_t i);
	const char *(*cfg_name)(const muster_cfg *node); /* member name, NULL for elements */
	/* Scalar getters: 0 on success, -1 when the node has another type. */
	int (*cfg_string)(const muster_cfg *node, const char **out);
	int (*cfg_int)(const muster_cfg *node, long long *out);
	int (*cfg_bool)(const muster_cfg *node, int *out);
	int (*cfg_float)(const muster_cfg *node, double *out);
	/* Where the node is written, for messages. */
	const char *(*cfg_file)(const muster_cfg *node);
	int (*cfg_line)(const muster_cfg *node);

	/* Why open() failed: the core prefixes "plugin(instance): " and, when
	 * `at` is given, its "file:line: ". */
	void (*open_error)(muster_plugin_ctx *pc, const muster_cfg *at, const char *fmt, ...)
		MUSTER_PLUGIN_PRINTF(3, 4);

	/* Why resolve() answered other than success. */
	void (*fail)(muster_call *call, const char *fmt, ...) MUSTER_PLUGIN_PRINTF(2, 3);
	/* Milliseconds left of the entry's time budget (0 when spent). */
	long (*remaining_ms)(const muster_call *call);

	/* The result builder.  Every call copies its strings and returns 0, or
	 * -1 with the reason already recorded for fail(). */
	int (*add_job)(muster_call *call, const char *job);
	/* `index` < 0 appends after the job's highest index. */
	int (*add_task)(muster_call *call, const char *job, long index, const char *address);
	int (*add_accelerator)(muster_call *call, const char *job, long index, const char *kind,
	                       long count);
	int (*set_task)(muster_call *call, const char *task_type, long task_index);
	int (*set_rpc_layer)(muster_call *call, const char *rpc_layer);
	int (*set_environment)(muster_call *call, const char *environment);
	/* The master string returned verbatim (TF_CONFIG's session_master) or,
	 * with MUSTER_MASTER_SIMPLE, the stored master. */
	int (*set_master)(muster_call *call, const char *master);
	int (*set_master_rule)(muster_call *call, int rule);

	/* ABI 1.1: hands the host a socket bound to the port this process
	 * reserved for its own server (the spark backend's TF port).  The
	 * result owns `fd` from here on, even on failure; the host releases it
	 * with muster_result_release_port() right before binding the port. */
	int (*hold_port)(muster_call *call, int fd, int port);

	/* ABI 1.2: `n` accelerators of `kind` for one task with their device
	 * ids (the ordinals the task should see, e.g. its CUDA_VISIBLE_DEVICES),
	 * counted as add_accelerator() counts them: call one or the other.  A
	 * task's ids come from one kind. */
	int (*add_accelerator_ids)(muster_call *call, const char *job, long index, const char *kind,
	                           const int *ids, size_t n);

	/* ABI 1.3: for watch().  armed(): from now on every change will be
	 * reported, so the core may take the result it compares against.
	 * changed(): the backend's view changed (cheap; call it per event, the
	 * core coalesces).  stop_fd(): readable when watch() must return. */
	void (*watch_armed)(muster_watcher *w);
	void (*watch_changed)(muster_watcher *w);
	int (*watch_stop_fd)(const muster_watcher *w);

	/* ABI 1.4: tasks first_index ... first_index + count - 1 of `job` on
	 * one host, at ports first_port ... first_port + count - 1: what a
	 * scheduler places on a node, in one call instead of `count` add_task()
	 * calls (the host checks `host` once).  `first_index` < 0 appends. */
	int (*add_task_range)(muster_call *call, const char *job, long first_index, long count,
	                      const char *host, long first_port);

	/* ABI 1.5: a hint that `job` (added as add_job() adds it) is about to
	 * get `count` more tasks, so the host makes room for them once instead
	 * of regrowing as they come.  A wrong count costs memory or a regrowth,
	 * never a wrong answer; the host bounds what it reserves. */
	int (*reserve_tasks)(muster_call *call, const char *job, long count);

	/* ABI 1.6: a call for watch(), so that the code it shares with
	 * resolve() (connecting, listing) has one to fail and time itself
	 * through.  fail() on it hands the reason to failed(data, reason)
	 * (NULL: the reason is dropped) rather than ending an answer;
	 * remaining_ms() answers budget_ms every time: a watch has no
	 * deadline, so each request it makes gets the whole budget; what the
	 * builder services add to it is discarded.  Only watch()'s thread uses
	 * it, until watch_call_end().  NULL when out of memory. */
	muster_call *(*watch_call_begin)(muster_plugin_ctx *pc, long budget_ms,
	                                 void (*failed)(void *data, const char *reason), void *data);
	void (*watch_call_end)(muster_call *call);

	/* ABI 1.7: how the launch numbers this answer's processes.
	 * set_placement(): MUSTER_PLACEMENT_NODES (the default) or
	 * MUSTER_PLACEMENT_PROCESSES: each task is one process a scheduler
	 * started, task index = its rank, several tasks may share a host.
	 * set_node_order(): the scheduler's order of the hosts (Slurm's node
	 * list as Slurm writes it, LSF's host order), each as the tasks'
	 * addresses write it (an IPv6 address in brackets); hosts of tasks not
	 * listed follow in the order their first task comes, a host listed
	 * twice counts where it comes first.  set_job_id(): the launcher's job
	 * id (SLURM_JOB_ID, LSB_JOBID, PBS_JOBID, a platform's); its tasks'
	 * ports are then not a launcher's master port, and the launch derives
	 * one from the id.  Each is kept once per answer (a later call
	 * replaces); 0, or -1 with the reason recorded as the builder's. */
	int (*set_placement)(muster_call *call, int placement);
	int (*set_node_order)(muster_call *call, const char *const *hosts, size_t n);
	int (*set_job_id)(muster_call *call, const char *id);
	/* ABI 1.7: an environment variable or file that decided the answer,
	 * and its value (NULL: unset or absent), for `muster resolve
	 * --explain`.  Noted only when someone asks for the explanation
	 * (otherwise it costs a branch); the value of a name that looks secret
	 * (TOKEN, KEY, SECRET, PASSWORD, PASSWD, AUTH, CREDENTIAL, in any case)
	 * is redacted by the core, whatever the plugin passes.  Never fails the
	 * answer: 0. */
	int (*note_input)(muster_call *call, const char *name, const char *value);

	/* ABI 1.8: a member the backend knows of but that is not ready to be
	 * part of the cluster: a pod not Running or without its IP yet, an
	 * executor not yet registered.  `job` and `index` (-1: not known) say
	 * which task it is to be, `name` what the backend calls it (a pod's
	 * name; NULL: none), `why` why it is not ready ("Pending"; NULL:
	 * nothing said).  Kept beside the answer, never as a task: a
	 * success's in the result (muster_result_pending_at()), a tryagain's
	 * in the entry's partial view (muster_explain_partial()), which also
	 * holds the tasks a plugin answering tryagain added for the members
	 * that are ready (add them before calling fail(): a refused builder
	 * call puts its reason in fail()'s place).  Names and reasons are cut
	 * at 256 bytes, with '?' for bytes outside printable ASCII; past 65536
	 * members the rest are only counted.  Never fails the answer: 0, or
	 * -1 when the member was not kept (NULL job, out of memory, the
	 * limit). */
	int (*add_pending)(muster_call *call, const char *job, long index, const char *name,
	                   const char *why);
	/* ABI 1.8: for watch(): MUSTER_WATCH_EVENT_RECONNECT or
	 * MUSTER_WATCH_EVENT_RESYNC happened, for the watch's observer
	 * (`muster watch --metrics-port` counts them per entry).  Cheap: call
	 * it per event. */
	void (*watch_event)(muster_watcher *w, int event);
} muster_host;

/* Whether the host has the service `field` (appended in some ABI minor). */
#define MUSTER_HOST_HAS(host, field)                                                       \
	((host)->struct_size >= offsetof(muster_host, field) + sizeof((host)->field))

/* The descriptor a plugin returns.  Read-only to the core. */
typedef struct muster_plugin {
	uint32_t abi_major;   /* MUSTER_PLUGIN_ABI_MAJOR */
	uint32_t abi_minor;   /* MUSTER_PLUGIN_ABI_MINOR */
	uint32_t struct_size; /* sizeof(muster_plugin) */
	uint32_t flags;       /* MUSTER_PLUGIN_* */
	const char *name;
	const char *version;

	/* Read the config, keep what resolve() needs.  0, or -1 after
	 * host->open_error().  Must not contact the backend. */
	int (*open)(const muster_host *host, muster_plugin_ctx *pc, void **state);
	/* Answer once; build the result through host's builder calls. */
	muster_status (*resolve)(void *state, const muster_host *host, muster_call *call);
	void (*close)(void *state);

	/* ABI 1.3, optional (NULL: the core re-resolves the entry every
	 * watch_interval_ms).  Runs on its own thread, concurrently with
	 * resolve() on the same state, until host->watch_stop_fd(w) is
	 * readable: waits for the backend's changes, calls watch_armed() once
	 * it would see every change and watch_changed() after each.  0 when
	 * stopped; -1 after host->log() saying why, and the core polls. */
	int (*watch)(void *state, const muster_host *host, muster_plugin_ctx *pc, muster_watcher *w);
} muster_plugin;

#define MUSTER_PLUGIN_ENTRY muster_plugin_entry_v1

/* Defines the plugin's one exported symbol. */
#define MUSTER_PLUGIN_DEFINE(descriptor)                                                    \
	MUSTER_PLUGIN_EXPORT const muster_plugin *MUSTER_PLUGIN_ENTRY(void);                 \
	MUSTER_PLUGIN_EXPORT const muster_plugin *MUSTER_PLUGIN_ENTRY(void) { return &(descriptor); }

/* Fills the descriptor's header.  In C it is designated, so the fields
 * that later minors append may be left out without a warning. */
#ifdef __cplusplus
#define MUSTER_PLUGIN_HEADER                                                                \
	MUSTER_PLUGIN_ABI_MAJOR, MUSTER_PLUGIN_ABI_MINOR, sizeof(muster_plugin)
#else
#define MUSTER_PLUGIN_HEADER                                                                \
	.abi_major = MUSTER_PLUGIN_ABI_MAJOR, .abi_minor = MUSTER_PLUGIN_ABI_MINOR,          \
	.struct_size = sizeof(muster_plugin)
#endif

/* The check open() starts with: a host of another ABI major lays out
 * muster_host differently, so nothing else of it may be used.  0, or -1
 * after open_error() naming both majors. */
static inline int muster_plugin_abi_check(const muster_host *host, muster_plugin_ctx *pc)
{
	if (host->abi_major == MUSTER_PLUGIN_ABI_MAJOR)
		return 0;
	host->open_error(pc, NULL, "host speaks plugin ABI %u, this plugin %d",
	                 (unsigned)host->abi_major, MUSTER_PLUGIN_ABI_MAJOR);
	return -1;
}

/* open()'s first steps for a plugin whose state is one struct: the ABI
 * check, then a zeroed struct of `size` bytes.  NULL after open_error(). */
static inline void *muster_plugin_conf_new(const muster_host *host, muster_plugin_ctx *pc,
                                           size_t size)
{
	void *conf;

	if (muster_plugin_abi_check(host, pc) != 0)
		return NULL;
	if ((conf = calloc(1, size)) == NULL)
		host->open_error(pc, NULL, "out of memory");
	return conf;
}

/* add_job() for a job that will get `count` tasks, room made for them
 * where the host has reserve_tasks() (ABI 1.5): call it when the count is
 * known before the tasks are added.  0, or -1 as add_job(). */
static inline int muster_plugin_add_job_sized(const muster_host *host, muster_call *call,
                                              const char *job, long count)
{
	if (MUSTER_HOST_HAS(host, reserve_tasks))
		return host->reserve_tasks(call, job, count);
	return host->add_job(call, job);
}

/* The ABI 1.7 services through these, on any host: an older host has no
 * placement, node order or job id (every task is a node there, as it
 * always was), and no --explain to note inputs for, so each is left
 * out there and answers 0. */
static inline int muster_plugin_set_placement(const muster_host *host, muster_call *call,
                                              int placement)
{
	return MUSTER_HOST_HAS(host, set_placement) ? host->set_placement(call, placement) : 0;
}

static inline int muster_plugin_set_node_order(const muster_host *host, muster_call *call,
                                               const char *const *hosts, size_t n)
{
	return MUSTER_HOST_HAS(host, set_node_order) ? host->set_node_order(call, hosts, n) : 0;
}

static inline int muster_plugin_set_job_id(const muster_host *host, muster_call *call,
                                           const char *id)
{
	return MUSTER_HOST_HAS(host, set_job_id) ? host->set_job_id(call, id) : 0;
}

static inline int muster_plugin_note_input(const muster_host *host, muster_call *call,
                                           const char *name, const char *value)
{
	return MUSTER_HOST_HAS(host, note_input) ? host->note_input(call, name, value) : 0;
}

/* note_input() of an environment variable's value as this process sees it. */
static inline int muster_plugin_note_env(const muster_host *host, muster_call *call,
                                         const char *name)
{
	return muster_plugin_note_input(host, call, name, getenv(name));
}

/* The ABI 1.8 services through these, on any host: an older host keeps
 * no pending members and counts no watch events, so each is left out
 * there (add_pending answers 0: nothing is lost that the host could show). */
static inline int muster_plugin_add_pending(const muster_host *host, muster_call *call,
                                            const char *job, long index, const char *name,
                                            const char *why)
{
	return MUSTER_HOST_HAS(host, add_pending) ? host->add_pending(call, job, index, name, why)
	                                          : 0;
}

static inline void muster_plugin_watch_event(const muster_host *host, muster_watcher *w,
                                             int event)
{
	if (MUSTER_HOST_HAS(host, watch_event))
		host->watch_event(w, event);
}

/*
 * Reading options: one table per plugin, one call in open().
 *
 * Each row names a key of the entry's config group, its type, its default
 * and the field of the plugin's own struct that it fills.  A wrong type or
 * value fails open() with the key's file:line, in the same words in every
 * plugin ("port must be between 1 and 65535, not 0").  Every key of the
 * table is asked for, present or not; keys no row names are never read, so
 * the core reports each as "unknown option 'KEY' (file:line)" (with "did
 * you mean" from the table's keys, an error under strict).  All of it is
 * static inline over the host services above: a plugin still links nothing.
 *
 *     struct conf { char *file, *rpc_layer; int match; long port; int order; };
 *     static const char *const orders[] = { "natural", "name", NULL };
 *     static const muster_popt options[] = {
 *         MUSTER_POPT_REQUIRED_STRING("file", struct conf, file, 0, "the file to read"),
 *         MUSTER_POPT_STRING("rpc_layer", struct conf, rpc_layer, MUSTER_POPT_EMPTY, "grpc"),
 *         MUSTER_POPT_BOOL("match_hostname", struct conf, match, 0),
 *         MUSTER_POPT_INT("port", struct conf, port, 1, 65535, 8470),
 *         MUSTER_POPT_CHOICE("order", struct conf, order, orders, 0),
 *         MUSTER_POPT_CUSTOM("jobs", read_jobs), // read_jobs(o, node or NULL, conf)
 *     };
 *     muster_popts o = { host, pc, host->cfg_root(pc) };
 *     if (muster_popt_read(&o, options, MUSTER_POPT_COUNT(options), conf) != 0)
 *             goto fail; // reported; free what conf holds
 *     // then only the rules between options, e.g. "a and b exclude each other"
 *
 * Strings are malloc()ed copies that the plugin frees, also after a failed
 * read; integer fields may be any integer of 1, 2, 4 or 8 bytes (int, long,
 * int64_t, bool, an enum).  A CUSTOM row's reader may read a sub-group the
 * same way, with a muster_popts whose group is that node.
 */

/* Where the options are read and failures go. */
typedef struct muster_popts {
	const muster_host *host;
	muster_plugin_ctx *pc;
	const muster_cfg *group; /* host->cfg_root(pc), or a group inside it */
} muster_popts;

enum muster_popt_type {
	MUSTER_POPT_T_STRING,
	MUSTER_POPT_T_INT,
	MUSTER_POPT_T_BOOL,
	MUSTER_POPT_T_CHOICE, /* a string among `choices`: its position */
	MUSTER_POPT_T_CUSTOM  /* `read` is called with the node, NULL when absent */
};

#define MUSTER_POPT_EMPTY 0x1u    /* a string may be "" */
#define MUSTER_POPT_REQUIRED 0x2u /* absent: "KEY is required: HINT" */

/* One row of the table: fill it with the MUSTER_POPT_* macros below. */
typedef struct muster_popt {
	const char *key;
	int type;                   /* MUSTER_POPT_T_* */
	unsigned flags;             /* MUSTER_POPT_EMPTY, MUSTER_POPT_REQUIRED */
	size_t offset, size;        /* the field filled */
	long long min, max, def;    /* INT range; INT, BOOL, CHOICE value when absent */
	const char *def_string;     /* STRING copied when absent (NULL: left alone) */
	const char *hint;           /* REQUIRED: says what the key is for */
	const char *const *choices; /* CHOICE: NULL-terminated */
	int (*read)(const muster_popts *o, const muster_cfg *node, void *conf); /* 0 or -1 */
} muster_popt;

/*
 * The rows.  In C each names only the fields it sets (designated
 * initialisers): a field appended to muster_popt is 0 in every row, and
 * no row changes.  C++ has designated initialisers only from C++20, and
 * g++ warns under -Wextra about the fields they leave out, so in C++ the
 * rows are positional and complete, through MUSTER_POPT_ROW_: a field
 * appended to muster_popt is appended there once, as 0 for every row.
 */
#ifdef __cplusplus
/* field_: MUSTER_POPT_FIELD_(T, f) or MUSTER_POPT_NO_FIELD_, the offset
 * and the size. */
#define MUSTER_POPT_ROW_(key_, type_, flags_, field_, min_, max_, def_, def_string_, hint_,    \
                         choices_, read_)                                                    \
	{ key_, type_, flags_, field_, min_, max_, def_, def_string_, hint_, choices_, read_ }
#define MUSTER_POPT_FIELD_(T, f) offsetof(T, f), sizeof(static_cast<T *>(nullptr)->f)
#define MUSTER_POPT_NO_FIELD_ 0, 0
#define MUSTER_POPT_STRING(key_, T, f, flags_, def_)                                        \
	MUSTER_POPT_ROW_(key_, MUSTER_POPT_T_STRING, flags_, MUSTER_POPT_FIELD_(T, f), 0, 0, 0,  \
	                 def_, nullptr, nullptr, nullptr)
#define MUSTER_POPT_REQUIRED_STRING(key_, T, f, flags_, hint_)                              \
	MUSTER_POPT_ROW_(key_, MUSTER_POPT_T_STRING, (flags_) | MUSTER_POPT_REQUIRED,            \
	                 MUSTER_POPT_FIELD_(T, f), 0, 0, 0, nullptr, hint_, nullptr, nullptr)
#define MUSTER_POPT_INT(key_, T, f, min_, max_, def_)                                       \
	MUSTER_POPT_ROW_(key_, MUSTER_POPT_T_INT, 0, MUSTER_POPT_FIELD_(T, f), min_, max_, def_, \
	                 nullptr, nullptr, nullptr, nullptr)
#define MUSTER_POPT_REQUIRED_INT(key_, T, f, min_, max_, hint_)                             \
	MUSTER_POPT_ROW_(key_, MUSTER_POPT_T_INT, MUSTER_POPT_REQUIRED, MUSTER_POPT_FIELD_(T, f), \
	                 min_, max_, 0, nullptr, hint_, nullptr, nullptr)
#define MUSTER_POPT_BOOL(key_, T, f, def_)                                                  \
	MUSTER_POPT_ROW_(key_, MUSTER_POPT_T_BOOL, 0, MUSTER_POPT_FIELD_(T, f), 0, 1, def_,      \
	                 nullptr, nullptr, nullptr, nullptr)
#define MUSTER_POPT_CHOICE(key_, T, f, choices_, def_)                                      \
	MUSTER_POPT_ROW_(key_, MUSTER_POPT_T_CHOICE, 0, MUSTER_POPT_FIELD_(T, f), 0, 0, def_,    \
	                 nullptr, nullptr, choices_, nullptr)
#define MUSTER_POPT_CUSTOM(key_, read_)                                                     \
	MUSTER_POPT_ROW_(key_, MUSTER_POPT_T_CUSTOM, 0, MUSTER_POPT_NO_FIELD_, 0, 0, 0, nullptr,  \
	                 nullptr, nullptr, read_)
#else
#define MUSTER_POPT_FIELD_(T, f) .offset = offsetof(T, f), .size = sizeof(((T *)0)->f)
#define MUSTER_POPT_STRING(key_, T, f, flags_, def_)                                        \
	{ .key = (key_), .type = MUSTER_POPT_T_STRING, .flags = (flags_),                    \
	  MUSTER_POPT_FIELD_(T, f), .def_string = (def_) }
#define MUSTER_POPT_REQUIRED_STRING(key_, T, f, flags_, hint_)                              \
	{ .key = (key_), .type = MUSTER_POPT_T_STRING, .flags = (flags_) | MUSTER_POPT_REQUIRED, \
	  MUSTER_POPT_FIELD_(T, f), .hint = (hint_) }
#define MUSTER_POPT_INT(key_, T, f, min_, max_, def_)                                       \
	{ .key = (key_), .type = MUSTER_POPT_T_INT, MUSTER_POPT_FIELD_(T, f), .min = (min_),   \
	  .max = (max_), .def = (def_) }
#define MUSTER_POPT_REQUIRED_INT(key_, T, f, min_, max_, hint_)                             \
	{ .key = (key_), .type = MUSTER_POPT_T_INT, .flags = MUSTER_POPT_REQUIRED,            \
	  MUSTER_POPT_FIELD_(T, f), .min = (min_), .max = (max_), .hint = (hint_) }
#define MUSTER_POPT_BOOL(key_, T, f, def_)                                                  \
	{ .key = (key_), .type = MUSTER_POPT_T_BOOL, MUSTER_POPT_FIELD_(T, f), .max = 1,       \
	  .def = (def_) }
#define MUSTER_POPT_CHOICE(key_, T, f, choices_, def_)                                      \
	{ .key = (key_), .type = MUSTER_POPT_T_CHOICE, MUSTER_POPT_FIELD_(T, f), .def = (def_), \
	  .choices = (choices_) }
#define MUSTER_POPT_CUSTOM(key_, read_)                                                     \
	{ .key = (key_), .type = MUSTER_POPT_T_CUSTOM, .read = (read_) }
#endif
#define MUSTER_POPT_COUNT(table) (sizeof(table) / sizeof((table)[0]))

#ifdef __cplusplus
#define MUSTER_POPT_CAST_(T, v) static_cast<T>(v)
#else
#define MUSTER_POPT_CAST_(T, v) ((T)(v))
#endif

/* "a string", "an integer", ... for messages. */
static inline const char *muster_popt_kind(const muster_host *host, const muster_cfg *node)
{
	switch (host->cfg_type(node)) {
	case MUSTER_CFG_INT: return "an integer";
	case MUSTER_CFG_FLOAT: return "a float";
	case MUSTER_CFG_STRING: return "a string";
	case MUSTER_CFG_BOOL: return "a boolean";
	case MUSTER_CFG_GROUP: return "a group";
	case MUSTER_CFG_ARRAY: return "an array";
	case MUSTER_CFG_LIST: return "a list";
	default: return "of unknown type";
	}
}

/* Reports "out of memory" at `at`; returns -1. */
static inline int muster_popt_nomem(const muster_popts *o, const muster_cfg *at)
{
	o->host->open_error(o->pc, at, "out of memory");
	return -1;
}

/* A copy of `s` into *out (freeing what was there): 0, or -1 reported at `at`. */
static inline int muster_popt_copy(const muster_popts *o, const muster_cfg *at, const char *s,
                                   char **out)
{
	size_t len = strlen(s) + 1;
	char *copy = MUSTER_POPT_CAST_(char *, malloc(len));

	if (copy == NULL)
		return muster_popt_nomem(o, at);
	memcpy(copy, s, len);
	free(*out);
	*out = copy;
	return 0;
}

/* A string node's value (named `what` in messages): 0, or -1 reported
 * when it is not a string, or "" without MUSTER_POPT_EMPTY. */
static inline int muster_popt_node_string(const muster_popts *o, const muster_cfg *node,
                                          const char *what, unsigned flags, const char **out)
{
	if (o->host->cfg_string(node, out) != 0 || *out == NULL) {
		o->host->open_error(o->pc, node, "%s must be a string, not %s", what,
		                    muster_popt_kind(o->host, node));
		return -1;
	}
	if (!(flags & MUSTER_POPT_EMPTY) && (*out)[0] == '\0') {
		o->host->open_error(o->pc, node, "%s must not be empty", what);
		return -1;
	}
	return 0;
}

/* A string, or a non-empty array/list of strings, into a fresh vector of
 * copies (*n of them): 0, or -1 reported.  The caller frees what is set in
 * *out also on failure. */
static inline int muster_popt_string_list(const muster_popts *o, const muster_cfg *node,
                                          const char *what, char ***out, size_t *n)
{
	int type = o->host->cfg_type(node);
	size_t count = 1, i;
	const char *s;

	if (type != MUSTER_CFG_STRING && type != MUSTER_CFG_ARRAY && type != MUSTER_CFG_LIST) {
		o->host->open_error(o->pc, node, "%s must be a list of strings, not %s", what,
		                    muster_popt_kind(o->host, node));
		return -1;
	}
	if (type != MUSTER_CFG_STRING && (count = o->host->cfg_count(node)) == 0) {
		o->host->open_error(o->pc, node, "%s must not be empty", what);
		return -1;
	}
	if ((*out = MUSTER_POPT_CAST_(char **, calloc(count, sizeof(char *)))) == NULL)
		return muster_popt_nomem(o, node);
	for (i = 0; i < count; i++) {
		const muster_cfg *el = type == MUSTER_CFG_STRING ? node : o->host->cfg_at(node, i);

		if (muster_popt_node_string(o, el, what, 0, &s) < 0 ||
		    muster_popt_copy(o, el, s, &(*out)[i]) < 0)
			return -1;
		*n = i + 1;
	}
	return 0;
}

/* A group node whose members are named by the user (`shape` shows one,
 * e.g. "job = [\"selector\", ...]"): 0 with its member count, or -1. */
static inline int muster_popt_group(const muster_popts *o, const muster_cfg *node,
                                    const char *shape, size_t *count)
{
	if (o->host->cfg_type(node) != MUSTER_CFG_GROUP) {
		o->host->open_error(o->pc, node, "%s must be a group of %s, not %s",
		                    o->host->cfg_name(node), shape, muster_popt_kind(o->host, node));
		return -1;
	}
	*count = o->host->cfg_count(node);
	return 0;
}

/* Stores an integer into a field of `size` bytes. */
static inline void muster_popt_store_(void *field, size_t size, long long v)
{
	int8_t v8 = MUSTER_POPT_CAST_(int8_t, v);
	int16_t v16 = MUSTER_POPT_CAST_(int16_t, v);
	int32_t v32 = MUSTER_POPT_CAST_(int32_t, v);
	int64_t v64 = v;

	switch (size) {
	case 1: memcpy(field, &v8, 1); break;
	case 2: memcpy(field, &v16, 2); break;
	case 4: memcpy(field, &v32, 4); break;
	default: memcpy(field, &v64, 8); break;
	}
}

/* A CHOICE row's present key: 0, or -1 reported. */
static inline int muster_popt_choice_(const muster_popts *o, const muster_popt *opt,
                                      const muster_cfg *node, void *field)
{
	char list[160];
	size_t len = 0, n;
	const char *s;
	int i;

	if (muster_popt_node_string(o, node, opt->key, 0, &s) < 0)
		return -1;
	for (i = 0; opt->choices[i] != NULL; i++) {
		if (strcmp(s, opt->choices[i]) == 0) {
			muster_popt_store_(field, opt->size, i);
			return 0;
		}
		if (i > 0 && len + 2 < sizeof(list)) {
			memcpy(list + len, ", ", 2);
			len += 2;
		}
		n = strlen(opt->choices[i]);
		if (len + n < sizeof(list)) {
			memcpy(list + len, opt->choices[i], n);
			len += n;
		}
	}
	list[len] = '\0';
	o->host->open_error(o->pc, node, "%s must be one of %s, not \"%s\"", opt->key, list, s);
	return -1;
}

/* One row whose key is present: 0, or -1 reported. */
static inline int muster_popt_value_(const muster_popts *o, const muster_popt *opt,
                                     const muster_cfg *node, void *field)
{
	const muster_host *h = o->host;
	const char *s;
	long long v;
	int b;

	switch (opt->type) {
	case MUSTER_POPT_T_STRING:
		if (muster_popt_node_string(o, node, opt->key, opt->flags, &s) < 0)
			return -1;
		return muster_popt_copy(o, node, s, MUSTER_POPT_CAST_(char **, field));
	case MUSTER_POPT_T_INT:
		if (h->cfg_int(node, &v) != 0) {
			h->open_error(o->pc, node, "%s must be an integer, not %s", opt->key,
			              muster_popt_kind(h, node));
			return -1;
		}
		if (v < opt->min || v > opt->max) {
			h->open_error(o->pc, node, "%s must be between %lld and %lld, not %lld", opt->key,
			              opt->min, opt->max, v);
			return -1;
		}
		muster_popt_store_(field, opt->size, v);
		return 0;
	case MUSTER_POPT_T_BOOL:
		if (h->cfg_bool(node, &b) != 0) {
			h->open_error(o->pc, node, "%s must be true or false, not %s", opt->key,
			              muster_popt_kind(h, node));
			return -1;
		}
		muster_popt_store_(field, opt->size, b != 0);
		return 0;
	default:
		return muster_popt_choice_(o, opt, node, field);
	}
}

/* Reads every row of `table` into the struct at `conf`, in table order:
 * 0, or -1 after the host's open_error(). */
static inline int muster_popt_read(const muster_popts *o, const muster_popt *table, size_t n,
                                   void *conf)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const muster_popt *opt = &table[i];
		const muster_cfg *node = o->host->cfg_get(o->group, opt->key);
		void *field = MUSTER_POPT_CAST_(char *, conf) + opt->offset;
		int rc = 0;

		if (opt->type == MUSTER_POPT_T_CUSTOM)
			rc = opt->read(o, node, conf);
		else if (node != NULL)
			rc = muster_popt_value_(o, opt, node, field);
		else if (opt->flags & MUSTER_POPT_REQUIRED) {
			o->host->open_error(o->pc, NULL, "%s is required%s%s", opt->key,
			                    opt->hint ? ": " : "", opt->hint ? opt->hint : "");
			rc = -1;
		} else if (opt->type != MUSTER_POPT_T_STRING)
			muster_popt_store_(field, opt->size, opt->def);
		else if (opt->def_string != NULL)
			rc = muster_popt_copy(o, NULL, opt->def_string, MUSTER_POPT_CAST_(char **, field));
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* open()'s reading for a plugin whose state is one struct that one option
 * table fills: muster_plugin_conf_new(), muster_popt_read() of the entry's
 * group into it, then `check` (NULL: none), the rules between options.
 * The struct, or NULL after open_error(), what the read had copied freed
 * by `conf_free` (the descriptor's close()):
 *
 *     *state = muster_plugin_conf_read(host, pc, sizeof(struct conf), options,
 *                                      MUSTER_POPT_COUNT(options), NULL, my_close);
 *     return *state != NULL ? 0 : -1;
 */
static inline void *muster_plugin_conf_read(const muster_host *host, muster_plugin_ctx *pc,
                                            size_t size, const muster_popt *table, size_t n,
                                            int (*check)(const muster_popts *o, void *conf),
                                            void (*conf_free)(void *conf))
{
	void *conf = muster_plugin_conf_new(host, pc, size);
	muster_popts o;

	if (conf == NULL)
		return NULL;
	o.host = host;
	o.pc = pc;
	o.group = host->cfg_root(pc);
	if (muster_popt_read(&o, table, n, conf) != 0 || (check != NULL && check(&o, conf) != 0)) {
		conf_free(conf);
		return NULL;
	}
	return conf;
}

#ifdef __cplusplus
}
#endif

#endif /* MUSTER_PLUGIN_H */
