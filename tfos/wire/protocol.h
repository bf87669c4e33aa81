/*
 * The reservation protocol's messages, on top of pickle.h values and
 * frame.h framing.
 *
 *   requests   {'type': 'REG'|'QUERY'|'QINFO'|'STOP', 'data': ...}, 'data'
 *              present only when truthy, as the Python client writes them
 *   replies    'OK' (REG, STOP), True/False (QUERY), the list of registered
 *              dicts in arrival order (QINFO), 'ERR' (unknown type)
 *   metadata   the nine fields of a registration, in Python's order
 *   template   job name and task index of an executor id (ps, then the
 *              master node, then the evaluator, then workers)
 *   cluster    the ClusterSpec built from a QINFO list sorted by executor id
 *
 * Errors come back as -1 (or NULL) with a reason in a caller's buffer
 * (err, errlen); err may be NULL.
 */
#ifndef MUSTER_TFOS_WIRE_PROTOCOL_H
#define MUSTER_TFOS_WIRE_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "pickle.h"

/* ---- messages ---- */

enum res_msg_type {
	RES_MSG_REG,
	RES_MSG_QUERY,
	RES_MSG_QINFO,
	RES_MSG_STOP,
	RES_MSG_OTHER /* a str type the reference answers with 'ERR' */
};

/* Python's truth value: None, False, 0, 0.0, and empty str/bytes/containers are false. */
bool pv_truthy(const pv *v);

/* {'type': type} plus 'data': data when data is truthy.  Takes ownership
 * of data (may be NULL).  NULL when out of memory. */
pv *res_request(const char *type, pv *data);

/*
 * Read a request.  Returns 0 with the type, its text and the data (borrowed
 * from msg; NULL when absent) or -1 when msg is not a dict with a str
 * 'type' (the reference server drops such a connection).  A REG without
 * 'data' is returned as RES_MSG_REG with *data NULL: the reference drops
 * the connection there (KeyError), the caller decides.
 */
int res_request_parse(const pv *msg, enum res_msg_type *type, const char **type_name,
                      const pv **data, char *err, size_t errlen);

/* Reply values: 'OK', 'ERR', True/False.  New references. */
pv *res_reply_ok(void);
pv *res_reply_err(void);
pv *res_reply_bool(bool b);

/* Encode v (protocol 3, no memo) and frame it in one buffer, authenticated
 * when auth is not NULL.  *out malloc'd.  0 or -1. */
int res_pack(struct res_auth *auth, const pv *v, uint8_t **out, size_t *out_len);

/*
 * A received frame's payload to a value: with auth, the tag is checked (and
 * the receive sequence advances) before anything is decoded.  limits may be
 * NULL (defaults).  NULL on failure, with the reason (for a pickle, the
 * opcode and byte offset) in err.
 */
pv *res_unpack(struct res_auth *auth, const uint8_t *payload, size_t len,
               const struct pv_limits *limits, char *err, size_t errlen);

/* ---- node metadata ---- */

struct res_node {
	int64_t executor_id;
	const char *host;       /* this node's address */
	const char *job_name;   /* from the template, "default" when outside it */
	int64_t task_index;     /* -1 with "default" */
	int64_t port;           /* the TF server port reserved */
	int64_t tb_pid;         /* TensorBoard pid, 0: none */
	int64_t tb_port;        /* TensorBoard port, 0: none */
	/* addr: the tuple (addr_host, addr_port) when addr_path is NULL and
	 * addr_host is not; the str addr_path otherwise; None when both NULL. */
	const char *addr_host;
	int64_t addr_port;
	const char *addr_path;
	const uint8_t *authkey; /* bytes; authkey_len 0 writes b'' */
	size_t authkey_len;
};

/* The registration dict, keys in TFoS's order: executor_id, host,
 * job_name, task_index, port, tb_pid, tb_port, addr, authkey.  NULL when
 * out of memory or host/job_name is NULL. */
pv *res_node_to_pv(const struct res_node *n);

/*
 * Read a registration.  Required: executor_id, port, task_index (int) and
 * host, job_name (str); the others are read when present with the expected
 * type and left 0/NULL otherwise.  Strings and bytes point into dict.
 * Other keys are not looked at: keep the dict itself to carry them.
 */
int res_node_from_pv(const pv *dict, struct res_node *n, char *err, size_t errlen);

/* ---- cluster template ---- */

struct res_template {
	int64_t cluster_size;    /* num_executors, > 0 */
	int64_t num_ps;          /* >= 0 */
	const char *master_node; /* NULL or "": none; "chief" or "master" */
	bool eval_node;
};

/* TFoS's assertions: counts add up (ps + master + evaluator <= size) and a
 * master or a worker exists.  0, or -1 with a reason. */
int res_template_check(const struct res_template *t, char *err, size_t errlen);

/*
 * The job and task index of executor_id: ids 0..num_ps-1 are ps, then one
 * master node, then one evaluator, then workers.  An id outside
 * 0..cluster_size-1 gets "default" and -1, as in TFoS.  *job_name is a
 * static string or t->master_node.  0, or -1 when the template is invalid.
 */
int res_template_role(const struct res_template *t, int64_t executor_id, const char **job_name,
                      int64_t *task_index, char *err, size_t errlen);

/* ---- cluster spec ---- */

struct res_cluster_job {
	char *name;
	size_t ntasks;
	char **addrs;  /* "host:port"; an IPv6 host is bracketed: "[fd00::1]:2222" */
	int64_t *executor_ids; /* of each task, same order */
};

struct res_cluster {
	size_t njobs;
	struct res_cluster_job *jobs; /* in order of first appearance (ps, chief/master, evaluator, worker) */
};

/*
 * Build the ClusterSpec from a QINFO list: registrations sorted by
 * executor_id, each appended as "host:port" to its job_name's list.  A
 * repeated executor_id is an error naming it and both hosts; so is an entry
 * that res_node_from_pv refuses.  0, or -1 (out emptied).
 */
int res_cluster_from_qinfo(const pv *list, struct res_cluster *out, char *err, size_t errlen);
void res_cluster_free(struct res_cluster *c);

/* The ClusterSpec as Python's json.dumps(spec) writes it (separators ", "
 * and ": "): {"ps": ["10.0.0.1:40000"], "worker": [...]}.  malloc'd, NULL
 * when out of memory. */
char *res_cluster_json(const struct res_cluster *c);

/* The registration of (host, executor_id) in a QINFO list (a retried
 * executor reuses it, as TFoS does), borrowed; NULL when absent. */
const pv *res_qinfo_find(const pv *list, const char *host, int64_t executor_id);

/* Executor ids in 0..cluster_size-1 with no registration in list: the
 * count, and the first `cap` of them in ascending order in missing[]. */
size_t res_qinfo_missing(const pv *list, int64_t cluster_size, int64_t *missing, size_t cap);

#endif
