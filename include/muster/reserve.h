/*
 * muster — the reservation server (`muster reserve`), as a library call.
 *
 * A TensorFlowOnSpark-compatible reservation server: every executor of a
 * job registers its address with it, polls until all `cluster_size` have,
 * and fetches the list; from that list each one builds the same
 * ClusterSpec.  A launcher embeds the server with these calls:
 *
 *     muster_reserve_options o = MUSTER_RESERVE_OPTIONS_INIT;
 *     o.cluster_size = 16;
 *     muster_reserve_open(&srv, &o, &err);     binds and listens
 *     port = muster_reserve_port(srv);         hand it to the executors
 *     rc = muster_reserve_run(srv, &err);      until done, STOP or timeout
 *     muster_reserve_cluster_spec(&json, srv, &err);
 *     muster_reserve_free(srv);
 *
 * Wire compatibility and its risk: without an auth key the server speaks
 * exactly TensorFlowOnSpark's protocol (4-byte big-endian length, one
 * pickle), so its Python executors can use it; then anyone who can reach
 * the port can register as any task (a ps, say) and receive every other
 * registration, including the TFManager authkeys.  Bind it to the cluster's
 * interface and firewall it.  Pickles are decoded by a restricted decoder
 * that implements only data opcodes: nothing received can name or call
 * code.  With `auth_key_file` (both ends muster) every frame carries an
 * HMAC-SHA256 tag and frames without a valid one are dropped.
 *
 * Conventions are muster.h's: 0 or a negative MUSTER_E* code, details in
 * a muster_error, strings through char ** released with muster_free().
 * One server is used by one thread at a time, except muster_reserve_stop(),
 * which any thread or a signal handler may call.
 */
#ifndef MUSTER_RESERVE_H
#define MUSTER_RESERVE_H

#include <stddef.h>

#include <muster/muster.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Options for muster_reserve_open().  Start from
 * MUSTER_RESERVE_OPTIONS_INIT; fields are only ever appended, and `size`
 * tells the library which exist. */
typedef struct muster_reserve_options {
	size_t size;
	long cluster_size;         /* executors to wait for (> 0) */
	const char *host;          /* address to bind; NULL: all IPv4 interfaces, as TFoS */
	int port_min, port_max;    /* tried in order, first bind wins; 0, 0: any free port */
	long timeout_ms;           /* < 0: wait forever; default 600000, as TFoS */
	const char *auth_key_file; /* NULL: unauthenticated, TFoS-compatible */
	size_t max_frame;          /* largest frame accepted; 0: the default (64 KiB) */
	int log_level;             /* messages up to this level reach `log` */
	muster_log_fn log;         /* NULL: silent; progress is logged at NOTICE */
	void *log_data;
	/* Flood limits.  A connection that completes no request (the auth
	 * handshake included) for idle_timeout_ms is closed.  At a cap or the
	 * descriptor limit a newcomer evicts the connection longest without a
	 * completed request, once that one has had 3 s (or half the idle
	 * timeout) for one; else it waits in the listen backlog, except that
	 * one from an address already at its cap is closed. */
	long idle_timeout_ms;      /* 0: the default (10000); < 0: never */
	long max_connections;      /* open at once; 0: cluster_size + 1024 */
	long max_per_address;      /* open at once from one address; 0: cluster_size + 16 */
	/* Prometheus metrics (GET /metrics, text format 0.0.4), served from
	 * the run's own loop while it runs: metrics_port -1 (the default)
	 * none, 0 any free port (muster_reserve_metrics_port()); metrics_host
	 * NULL: 127.0.0.1.  The names are in muster(1). */
	const char *metrics_host;
	int metrics_port;
} muster_reserve_options;

#define MUSTER_RESERVE_OPTIONS_INIT                                                       \
	{ sizeof(muster_reserve_options), 0, NULL, 0, 0, 600000L, NULL, 0, MUSTER_LOG_NOTICE, \
	  NULL, NULL, 10000L, 0, 0, NULL, -1 }

typedef struct muster_reserve muster_reserve;

/* Validate the options, read the key file, bind and listen.  On success the
 * port is known (muster_reserve_port) before any executor is started.
 * Every executor holds a descriptor until it has the list, and the process's
 * RLIMIT_NOFILE is the host's to set: raise its soft limit to the hard one
 * first, as `muster reserve` does. */
MUSTER_API int muster_reserve_open(muster_reserve **out, const muster_reserve_options *options,
                                   muster_error *err);

/* The port the server listens on. */
MUSTER_API int muster_reserve_port(const muster_reserve *server);
/* The port of its metrics page; -1 when it has none (or the run is over). */
MUSTER_API int muster_reserve_metrics_port(const muster_reserve *server);

/*
 * Serve until one of:
 *  - done: every executor 0..cluster_size-1 has registered and fetched the
 *    complete list: returns 0;
 *  - a STOP request: returns 0 when the reservation was complete, else
 *    MUSTER_EUNAVAIL;
 *  - muster_reserve_stop(): MUSTER_EUNAVAIL unless done;
 *  - the timeout: MUSTER_ETRYAGAIN, the message naming what is missing.
 * Each executor id registers once, with a registration that makes a
 * ClusterSpec entry and is at most 4 KiB encoded; any other REG (a
 * different one for an id already held, from a connection that has
 * registered, an id out of range) is answered 'ERR' and changes nothing.
 * The listening socket is closed when it returns; run it once.
 */
MUSTER_API int muster_reserve_run(muster_reserve *server, muster_error *err);

/* Ask a running server to return soon.  Async-signal-safe; any thread. */
MUSTER_API void muster_reserve_stop(muster_reserve *server);

/* Registrations received (one per executor id). */
MUSTER_API long muster_reserve_registered(const muster_reserve *server);

/*
 * The ClusterSpec of the registrations, sorted by executor id, as one line
 * of JSON {"ps": ["h:p"], "worker": ["h:p", "h:p"]} (job keys in the order
 * their first executor id gives: ps, chief/master, evaluator, worker).
 * MUSTER_ETRYAGAIN while registrations are missing.  (A registration that
 * could not be a ClusterSpec entry is refused when it arrives; were the
 * list to make none all the same, MUSTER_ECONFLICT.)
 */
MUSTER_API int muster_reserve_cluster_spec(char **out, const muster_reserve *server,
                                           muster_error *err);

/* What is missing, by executor id, in increasing order. */
enum muster_reserve_missing {
	MUSTER_RESERVE_UNREGISTERED = 0, /* never registered */
	MUSTER_RESERVE_UNFETCHED = 1     /* registered, never fetched the complete list */
};
MUSTER_API size_t muster_reserve_missing_count(const muster_reserve *server, int which);
/* The i-th missing executor id, -1 past the end. */
MUSTER_API long muster_reserve_missing_at(const muster_reserve *server, int which, size_t i);

MUSTER_API void muster_reserve_free(muster_reserve *server);

#ifdef __cplusplus
}
#endif

#endif /* MUSTER_RESERVE_H */
