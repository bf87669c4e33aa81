/*
 * spark backend: internal interfaces between its files.
 *
 *   spark.c    descriptor, open()/close(), resolve() in order of the steps
 *   options.c  the entry's options (open) and what resolve() reads from the
 *              environment each time: server, executor id, TENSORFLOW_PORT
 *   clock.c    the call's deadline and its pieces
 *   conn.c     one TCP connection to the reservation server: connect, the
 *              optional auth hello, one request and its reply, all bounded
 *   port.c     the TF port this process reserves (bind and hold)
 *   session.c  the protocol: QINFO, REG, QUERY polling, final QINFO
 *   build.c    the ClusterSpec and self identity through the host's builder
 *
 * The wire itself (pickle, framing, HMAC, messages, the template) is the
 * shared code in tfos/wire/.  Nothing here is exported: the plugin's only
 * visible symbol is its entry.
 */
#ifndef MUSTER_PLUGINS_SPARK_H
#define MUSTER_PLUGINS_SPARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <muster/muster.h> /* MUSTER_LOG_*: the host log()'s levels */
#include <muster/plugin.h>

#include "plugins/common/answer.h"
#include "tfos/wire/frame.h"
#include "tfos/wire/pickle.h"
#include "tfos/wire/protocol.h"

/* TensorFlowOnSpark's driver waits 600 s for reservations. */
#define SPARK_DEFAULT_RESERVATION_TIMEOUT_MS 600000L
/* One request unanswered this long means the server is stuck. */
#define SPARK_DEFAULT_IO_TIMEOUT_MS 10000L
/* QUERY polling: TFoS polls every 1 s; we start faster and back off to that. */
#define SPARK_POLL_FIRST_MS 50L
#define SPARK_POLL_MAX_MS 1000L
/* Kept back from the entry's budget so our answer is in before the core's
 * deadline (a late answer counts as unavail). */
#define SPARK_BUDGET_MARGIN_MS 100L
/* Missing executor ids named in a timeout message. */
#define SPARK_MISSING_SHOWN 8
/* The largest reply accepted (a 1,024-node QINFO is ~200 KiB). */
#define SPARK_MAX_REPLY ((size_t)16 << 20)

/* What open() keeps: the entry's options, read-only afterwards. */
struct spark_conf {
	muster_plugin_ctx *pc;
	char *server;               /* "host:port"; NULL: TFOS_SERVER_HOST/PORT */
	int64_t cluster_size;
	int64_t executor_id;        /* -1: read executor_id_variable */
	char *executor_id_variable; /* NULL when executor_id is given */
	struct res_template tmpl;   /* cluster_size, num_ps, master_node, eval_node */
	char *master_node;          /* owned storage behind tmpl.master_node */
	long reservation_timeout_ms;
	long io_timeout_ms;
	char *host;                 /* advertised host; NULL: the address that reaches the server */
	char *rpc_layer;
	bool have_key;              /* auth_key_file given */
	uint8_t key[RES_AUTH_MAX_KEY];
	size_t key_len;
};

/* One resolve(): where reasons go, the deadline, and what the environment said. */
struct spark_run {
	const muster_host *host;
	muster_call *call;
	const struct spark_conf *conf;
	long long start_ms;          /* on clock_now_ms()'s clock */
	long long deadline_ms;       /* min(reservation timeout, entry budget) */
	bool budget_binds;           /* the entry's budget, not reservation_timeout_ms, ends first */
	char server_host[256];
	char server_port[8];
	int64_t executor_id;
	long fixed_port;             /* TENSORFLOW_PORT, -1 when unset */
};

/* Logging shorthand. */
#define SPARK_LOG(run, level, ...) (run)->host->log((run)->conf->pc, (level), __VA_ARGS__)

/* options.c: the descriptor's open() and close(). */
int spark_open(const muster_host *host, muster_plugin_ctx *pc, void **state);
void spark_close(void *state);
/* Server address, executor id and TENSORFLOW_PORT for this call: SUCCESS,
 * NOTFOUND (no server known, or the id variable unset) or UNAVAIL. */
muster_status spark_read_env(struct spark_run *run);

/* clock.c */
void spark_clock_start(struct spark_run *run);
long spark_elapsed_ms(const struct spark_run *run);
/* The earlier of the run's deadline and now + ms. */
long long spark_deadline_in(const struct spark_run *run, long ms);

/* conn.c */
struct spark_conn {
	int fd;
	struct res_frame_reader reader;
	struct res_auth auth;
	bool authenticated;
	char local_host[64];  /* this end's address, as the server sees it */
	int local_family;     /* AF_INET or AF_INET6 */
};

enum spark_io {
	SPARK_IO_OK = 0,
	SPARK_IO_FAILED,   /* refused, reset, garbage: reason recorded */
	SPARK_IO_DEADLINE  /* the run's deadline came first: nothing recorded */
};

/* Connect to the server (and say hello when authenticating). */
enum spark_io spark_conn_open(struct spark_run *run, struct spark_conn *c, char *why,
                              size_t whylen);
void spark_conn_close(struct spark_conn *c);
/* Send request (ownership taken) and read one reply into *reply (caller
 * frees).  `what` names the request in reasons ("QINFO"). */
enum spark_io spark_conn_call(struct spark_run *run, struct spark_conn *c, const char *what,
                              pv *request, pv **reply, char *why, size_t whylen);

/* port.c: the TF port.  *fd is -1 when nothing is bound. */
struct spark_port {
	int fd;
	long port;
};
/* Reserve a port for this process's server: TENSORFLOW_PORT, or bind port
 * 0 in `family` and keep the socket.  0, or -1 with a reason. */
int spark_port_reserve(const struct spark_run *run, int family, struct spark_port *p,
                       char *why, size_t whylen);
/* A retried executor's registered port: hold it again when possible (best
 * effort: the earlier attempt may still have it). */
void spark_port_rebind(const struct spark_run *run, int family, long port, struct spark_port *p);
void spark_port_close(struct spark_port *p);
/* Hand the bound socket to the host (ABI 1.1).  0, or -1 after fail(). */
int spark_port_hand_over(const struct spark_run *run, struct spark_port *p);

/* session.c: the whole conversation; on SUCCESS *qinfo is the complete
 * list (caller frees) and *port what this process reserved (fd -1 when
 * nothing is bound). */
muster_status spark_session(struct spark_run *run, pv **qinfo, struct spark_port *port);

/* build.c: the ClusterSpec and self identity from the complete list. */
muster_status spark_build(struct spark_run *run, const pv *qinfo);
/* For a tryagain (ABI 1.8): the executors of an incomplete list as tasks,
 * the unregistered ones as pending members, each where the template puts
 * it, and self identity. */
void spark_partial(struct spark_run *run, const pv *qinfo);

#endif /* MUSTER_PLUGINS_SPARK_H */
