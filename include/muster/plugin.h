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

#define MUSTER_PLUGIN_ABI_MAJOR 1
#define MUSTER_PLUGIN_ABI_MINOR 1

/* Opaque handles owned by the core. */
typedef struct muster_plugin_ctx muster_plugin_ctx; /* one chain entry */
typedef struct muster_call muster_call;             /* one resolve of that entry */
typedef struct muster_cfg muster_cfg;               /* one node of the entry's config */

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
} muster_host;

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
	/* ABI minor >= 1 fields will be appended here. */
} muster_plugin;

#define MUSTER_PLUGIN_ENTRY muster_plugin_entry_v1

/* Defines the plugin's one exported symbol. */
#define MUSTER_PLUGIN_DEFINE(descriptor)                                                    \
	MUSTER_PLUGIN_EXPORT const muster_plugin *MUSTER_PLUGIN_ENTRY(void);                 \
	MUSTER_PLUGIN_EXPORT const muster_plugin *MUSTER_PLUGIN_ENTRY(void) { return &(descriptor); }

/* Fills the descriptor's header. */
#define MUSTER_PLUGIN_HEADER                                                                \
	MUSTER_PLUGIN_ABI_MAJOR, MUSTER_PLUGIN_ABI_MINOR, sizeof(muster_plugin)

#ifdef __cplusplus
}
#endif

#endif /* MUSTER_PLUGIN_H */
