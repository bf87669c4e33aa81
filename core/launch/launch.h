/* The nodes of a launch: the training tasks, master first, shared by the
 * environment and hostfile writers. */
#ifndef MUSTER_CORE_LAUNCH_H
#define MUSTER_CORE_LAUNCH_H

#include <stddef.h>

#include <muster/muster.h>

#include "model/model.h"

struct launch_node {
	const struct job *job;
	long index;
	const char *address;
};

struct launch_nodes {
	struct launch_node *node; /* node[0] is the master */
	size_t count;
};

/* MUSTER_EINVAL unless `l` starts from MUSTER_LAUNCH_INIT and its
 * nproc_per_node is 1..MUSTER_NPROC_PER_NODE_MAX. */
int launch_check(const muster_launch *l, muster_error *err);

/* The training tasks of `l->jobs`, master first.  With `dense`, a sparse
 * training job is an error (ranks must be 0..n-1).  Free with
 * launch_nodes_free(). */
int launch_nodes_build(struct launch_nodes *out, const muster_result *r, const muster_launch *l,
                       int dense, muster_error *err);
void launch_nodes_free(struct launch_nodes *n);

/* The host of "HOST:PORT" (an IPv6 address without its brackets) and the
 * port, as NUL-terminated copies in `host` (size bytes) and `port`. */
int launch_split_address(const char *address, char *host, size_t size, char port[6]);

#endif
