/*
 * The reservation server's insides (include/muster/reserve.h is its API).
 *
 * One thread, one poll() loop over the listening socket, a wake-up pipe
 * and every connection.  Each connection has its own frame reader and at
 * most one reply in flight: the protocol is lockstep, so while a reply is
 * being written the connection is not read (a client that pipelines waits,
 * and one that never reads its reply stalls only itself).  Nothing ever
 * blocks: a client that stops half-way through a frame holds one slot and
 * nothing else, and is closed once it has completed no request for the idle
 * timeout.  A request refused ('ERR') is no request completed, and its
 * connection is not read for a second.  Who gets a slot at all is admit.c's
 * business.
 */
#ifndef MUSTER_TFOS_SERVER_H
#define MUSTER_TFOS_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <muster/reserve.h>

#include "frame.h"
#include "lib/log.h"
#include "pickle.h"

/* A request is a registration of about 200 bytes; nothing legitimate comes
 * near this. */
#define RESERVE_DEFAULT_MAX_FRAME ((size_t)64 << 10)
/* A connection that completes no request for this long is closed. */
#define RESERVE_DEFAULT_IDLE_MS 10000L
/* A connection is evicted for a newcomer only after this long (or half the
 * idle timeout) without a completed request: its chance to make one.  An
 * honest executor polls every second at most. */
#define RESERVE_EVICT_GRACE_MS 3000L
/* Default caps: every executor may hold a connection, plus this many more
 * (retries, STOP clients, probes). */
#define RESERVE_TOTAL_SLACK 1024L
#define RESERVE_PER_ADDRESS_SLACK 16L
/* At the descriptor limit with nobody to evict, accept() is retried this
 * often (sooner when a connection closes). */
#define RESERVE_ACCEPT_RETRY_MS 1000L
/* After a refused request a connection is not read for this long: a client
 * repeating refused requests gets a few a second, not as many as the server
 * could decode.  No honest executor is ever refused (docs/decisions.md). */
#define RESERVE_REFUSAL_PAUSE_MS 1000L
/* Progress is logged when the count changes, and at least this often. */
#define RESERVE_PROGRESS_MS 10000L

/* A reply's bytes, shared by every connection that sends the same reply
 * (the complete QINFO list is encoded once, not once per executor). */
struct blob {
	unsigned refs;
	size_t len;
	uint8_t data[];
};
struct blob *blob_new(const void *data, size_t len); /* refs = 1 */
void blob_unref(struct blob *b);

/* The largest registration kept, encoded as QINFO sends it: an executor's
 * nine fields take about 250 bytes.  With one per executor id, a QINFO
 * reply is at most --size times this. */
#define RESERVE_MAX_REGISTRATION ((size_t)4 << 10)

/* One registration: the executor's metadata dict as received, encoded
 * (pv_encode), ready for the QINFO list. */
struct reg {
	uint8_t *pickle;
	size_t len;
	char *host;          /* data['host'] */
	int64_t executor_id; /* data['executor_id'], 0 to size-1 */
	uint64_t conn_serial;/* the connection that registered it; 0 once closed */
	char peer[64];       /* its peer address, for a retry's QINFO */
	bool fetched;        /* it received the complete list */
};

struct registry {
	struct reg *items; /* in arrival order: the order QINFO answers */
	size_t len, cap;
	size_t *slot;      /* by executor id (size of them): 1 + its index in items, or 0 */
	size_t fetched;    /* items with .fetched */
};

/* What became of a REG, and why (for the log). */
enum reg_outcome { REG_ADDED, REG_REPEATED, REG_REFUSED, REG_NOMEM };
struct reg_verdict {
	int level;           /* the log level of `why` */
	char why[240];
};

/* What the metrics page counts (metrics.c).  The loop's one thread
 * updates and reads them all: plain integers, no lock, no atomic. */
struct reserve_metrics {
	struct httpd *httpd; /* NULL: no page */
	unsigned long long accepted, refused, evicted, idle_closed;
	unsigned long long requests, requests_refused;
	unsigned long long bytes_in, bytes_out;
};

struct conn {
	int fd;
	uint64_t serial;        /* unique per connection, never 0 */
	char peer[64];          /* "host:port" */
	char peer_host[56];     /* the address alone */
	struct res_frame_reader rd;
	struct res_auth *auth;  /* NULL without a key */
	bool hello_seen;        /* auth: the client's hello arrived */
	long reg;               /* index of its registration, -1 */
	long long last_request_ms; /* its last request served, or its connect */
	unsigned long refused;  /* its requests refused: only the first is logged */
	unsigned long repeated; /* its REGs of a registration held: the same */
	long long quiet_until_ms; /* after a refusal it is not read before this */
	/* the reply in flight: header | payload | tag */
	uint8_t head[RES_FRAME_HEADER_SIZE];
	uint8_t tag[RES_AUTH_TAG_SIZE];
	size_t tag_len;
	struct blob *payload;   /* NULL: nothing to send */
	size_t sent, total;
	bool close_after;       /* close once the reply is out */
	unsigned long long *bytes_out; /* the server's count of bytes sent */
};

struct muster_reserve {
	long size;
	long timeout_ms;
	long idle_ms;            /* < 0: never */
	size_t max_conns, max_per_addr;
	size_t max_frame;
	int listen_fd;
	int port;
	char bound[80];          /* "0.0.0.0:PORT", for messages */
	int wake[2];             /* muster_reserve_stop() writes, run() reads */
	volatile int stop_requested;
	bool accepting;
	bool stopped_by_request; /* a STOP request arrived */
	bool ran;
	struct logger log;
	uint8_t *key;            /* auth key, or NULL */
	size_t key_len;

	struct conn **conns;     /* closed slots are NULL until compacted */
	size_t nconns, capconns;
	size_t nlive;            /* open connections */
	long long accept_resume_ms; /* the listener is not polled before this */
	uint64_t next_serial;
	struct pv_limits limits;

	struct registry reg;
	/* Cached encodings: the plain replies and the current QINFO list. */
	struct blob *reply_ok, *reply_true, *reply_false, *reply_err;
	struct blob *reply_list;     /* NULL when stale */
	long last_logged;            /* registrations at the last progress line */
	long long last_log_ms;
	/* The first of each flood event is a warning, the rest are info. */
	bool idle_logged, refuse_logged, evict_logged, pause_logged;
	struct reserve_metrics metrics;
};

/* listen.c */
int reserve_set_nonblocking(int fd);
int reserve_listen(const char *host, int port_min, int port_max, int *fd, int *port,
                   muster_error *err);

/* registry.c */
/* Room for the ids of `size` executors.  0, or -1 when out of memory. */
int registry_init(struct registry *r, long size);
void registry_free(struct registry *r);
/* Register connection c's REG data, or say why not (*v). */
enum reg_outcome registry_add(struct muster_reserve *s, struct conn *c, const pv *data,
                              struct reg_verdict *v);
bool registry_complete(const struct muster_reserve *s);
void registry_mark_fetched(struct muster_reserve *s, struct conn *c);
void registry_conn_closed(struct muster_reserve *s, const struct conn *c);

/* admit.c */
/* Accept what the caps and the descriptor limit allow (a bounded batch). */
void admit_some(struct muster_reserve *s, long long now);
/* Close connection i (its slot becomes NULL) and resume accepting. */
void admit_drop(struct muster_reserve *s, size_t i);
/* The level for a flood event: WARNING the first time, then INFO. */
int admit_log_level(bool *logged);

/* conn.c */
struct conn *conn_new(struct muster_reserve *s, int fd, const char *peer, const char *peer_host);
void conn_free(struct conn *c);
/* Queue a reply (the pickle `b`, framed, tagged when authenticated).
 * 0, or -1 when out of memory. */
int conn_send(struct conn *c, struct blob *b);
/* Write what can be written: 1 when all is out, 0 when more remains, -1
 * when the connection failed. */
int conn_flush(struct conn *c);
/* Read and handle what arrived: 0 to keep, -1 to close. */
int conn_input(struct muster_reserve *s, struct conn *c);

/* dispatch.c: one decoded frame's pickle.  DISPATCH_SERVED, DISPATCH_REFUSED
 * (answered 'ERR', and not a request served: the idle clock runs on), or
 * -1 to close the connection. */
enum { DISPATCH_SERVED = 0, DISPATCH_REFUSED = 1 };
int dispatch_request(struct muster_reserve *s, struct conn *c, const uint8_t *pickle, size_t len);
/* The encoded replies built once at open. 0, or -1 when out of memory. */
int dispatch_init_replies(struct muster_reserve *s);

/* metrics.c: the page of muster_reserve_options' metrics_port, when
 * asked for.  0, or an error code with the reason. */
int metrics_open(struct muster_reserve *s, const muster_reserve_options *o, muster_error *err);
void metrics_close(struct muster_reserve *s);

/* report.c */
void report_progress(struct muster_reserve *s, bool force);
/* The message for a run that ended before done (`why`: "timed out after 600 s"). */
int report_unfinished(const struct muster_reserve *s, int code, const char *why,
                      muster_error *err);

#endif
