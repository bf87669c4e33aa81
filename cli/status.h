/* muster status: the cluster grouped into nodes, as a table or JSON. */
#ifndef MUSTER_CLI_STATUS_H
#define MUSTER_CLI_STATUS_H

#include <stddef.h>

#include <muster/muster.h>

/* One task of a node. */
struct status_task {
	const char *job;     /* the result's */
	long index;
	const char *address; /* the result's */
	long port;           /* -1: none readable */
	int self;            /* this process's own task */
};

/* An accelerator kind summed over a node's tasks. */
struct status_accel {
	const char *kind; /* the result's */
	long count;
};

/* A host and the tasks on it, in the cluster's order. */
struct status_node {
	char *host;          /* as the addresses write it ("[fd00::1]" for IPv6) */
	struct status_task *tasks;
	size_t ntasks, cap;
	struct status_accel *accels;
	size_t naccels, accels_cap;
	int self;            /* holds this process's own task */
};

/* What one frame shows. */
struct status_view {
	int code;                    /* 0, or the chain's failure code */
	const char *message;         /* the failure's message; NULL on success */
	const muster_result *res;    /* the answer, a tryagain's partial view, or NULL */
	const muster_explain *x;     /* each entry's answer; NULL in a watch's frames */
	struct status_node *nodes;
	size_t nnodes, ntasks;
};

/* status_nodes.c: groups res's tasks by host: the hosts of the result's
 * node order first (as the launch numbers nodes), then the others in the
 * order their first task comes.  0, or -1 when out of memory. */
int status_view_init(struct status_view *v, int code, const char *message,
                     const muster_result *res, const muster_explain *x);
void status_view_release(struct status_view *v);
/* "success", "notfound", "unavail", "tryagain" or "error". */
const char *status_word(int code);

/* status_table.c: the frame as a table fitted to `width` (0: any), with
 * SGR colour when `color`.  0, or -1 when out of memory. */
int status_print_table(const struct status_view *v, size_t width, int color);
/* status_json.c: the frame as one line of JSON. */
int status_print_json(const struct status_view *v);

#endif
