/* muster doctor: pre-flight checks of a launch, each one row of a report:
 * what was checked, about what (a peer, a port, a variable), what was
 * found and, for a problem, how to fix it.  cmd_doctor.c runs them (the
 * network's in a thread of its own, the others meanwhile), all within
 * one deadline, and prints the report. */
#ifndef MUSTER_CLI_DOCTOR_H
#define MUSTER_CLI_DOCTOR_H

#include <stdio.h>

#include "cli.h"

enum doctor_level { DOCTOR_OK, DOCTOR_NOTE, DOCTOR_PROBLEM };

/* --timeout's default, and run --doctor's time. */
#define DOCTOR_DEFAULT_TIMEOUT_MS 5000L

struct doctor_row {
	enum doctor_level level;
	const char *check; /* a static name: "name", "reach", "port", ... */
	char *subject;     /* what it is about */
	char *detail;      /* what was found */
	char *fix;         /* how to fix it; NULL unless a problem */
};

/* One group of checks' rows: each group fills its own, so that groups
 * run in parallel without a lock, and prints in a fixed order. */
struct doctor_rows {
	struct doctor_row *row;
	size_t n, cap;
	int oom;
};

void doctor_add(struct doctor_rows *r, enum doctor_level level, const char *check,
                const char *subject, const char *fix, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 6, 7)))
#endif
	;
void doctor_rows_free(struct doctor_rows *r);

/* A node of the launch, in node order (node 0 holds rank 0). */
struct doctor_node {
	char *host;  /* as a lookup takes it (IPv6 without brackets) */
	long nproc;  /* its processes */
};

/* What the checks read of the launch, copied from its plan before they
 * start (the network's thread probes the plan meanwhile). */
struct doctor_launch {
	struct doctor_node *node;
	size_t nnodes;
	size_t self;           /* this node's index */
	const char **host;     /* the nodes' distinct hosts, in node order */
	size_t nhosts;
	char *master_host;
	int master_port;
	long world_size;
	long scheduler_tasks;  /* the processes a scheduler started, -1: none did */
	const char *scheduler_var; /* the variable that says so */
};

/* doctor_launch.c: reads the launch; 0 or the exit status (message
 * printed). */
int doctor_launch_read(struct doctor_launch *dl, const muster_plan *plan,
                       const muster_result *res);
void doctor_launch_free(struct doctor_launch *dl);
/* World size, duplicate ranks and addresses, visible devices. */
void doctor_check_launch(struct doctor_rows *r, const struct doctor_launch *dl,
                         const muster_result *res);

/* doctor_net.c: every peer's name, the interface that `plan`'s probe
 * chooses (a probe made now unless one was), and each peer's reachability,
 * within `timeout_ms`. */
void doctor_check_network(struct doctor_rows *r, const struct doctor_launch *dl,
                          muster_plan *plan, long timeout_ms);

/* doctor_port.c: on the master's node, the master port is free, or what
 * holds it. */
void doctor_check_port(struct doctor_rows *r, const struct doctor_launch *dl);

/* doctor_proxy.c: proxy variables that would carry the peers' gRPC
 * connections without a no_proxy that covers them. */
void doctor_check_proxy(struct doctor_rows *r, const struct doctor_launch *dl);

/* doctor_report.c: the rows of `groups` as a table or JSON on `f`. */
void doctor_print(FILE *f, const struct doctor_rows *groups, size_t ngroups, int json);
/* The worst level among them. */
enum doctor_level doctor_worst(const struct doctor_rows *groups, size_t ngroups);

/* cmd_doctor.c: the checks of the launch `plan` of `res` within
 * `timeout_ms`, the report on `f` (table, or JSON with `json`) when
 * `always` or when a problem is found; 0 when none is, CLI_EXIT_PROBLEM
 * when one is, or the exit status of a failure (message printed). */
int doctor_run(const muster_result *res, muster_plan *plan, long timeout_ms, int json, FILE *f,
               int always);

#endif
