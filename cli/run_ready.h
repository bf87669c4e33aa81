/* muster run's readiness (run_ready.c): on a node other than the
 * master's, the workers start once the master's host name resolves and,
 * with --wait-master, once its port accepts a connection, within
 * --master-timeout. */
#ifndef MUSTER_CLI_RUN_READY_H
#define MUSTER_CLI_RUN_READY_H

#include "cli.h"

/* 300 s: what the peers give their own first contact with the master
 * (torch's TCPStore timeout, JAX's initialization_timeout), so that
 * muster run gives up no sooner than the workers would have. */
#define RUN_READY_TIMEOUT_S 300L
/* --master-timeout's upper bound: a day. */
#define RUN_READY_TIMEOUT_MAX_S 86400L

struct run_ready {
	long timeout_s; /* --master-timeout; 0: no wait */
	int wait_port;  /* --wait-master */
	int given;      /* either option was given (--elastic refuses them) */
};

enum { RUN_OPT_MASTER_TIMEOUT = 0x200, RUN_OPT_WAIT_MASTER };
#define RUN_READY_LONGOPTS \
	{ "master-timeout", required_argument, NULL, RUN_OPT_MASTER_TIMEOUT }, \
	{ "wait-master", no_argument, NULL, RUN_OPT_WAIT_MASTER }

void run_ready_init(struct run_ready *r);
/* 0 when `c` is one of RUN_READY_LONGOPTS (now recorded), -1 when it is
 * not, CLI_EXIT_USAGE when its value is bad (message printed). */
int run_ready_option(struct run_ready *r, int c, const char *arg);
/* After parsing: 0, or CLI_EXIT_USAGE (message printed). */
int run_ready_check(const struct run_ready *r, int elastic, const char *framework);

/* Waits, as muster(1) says, for the master the launch plan names; returns
 * at once on the master's node and for a plan without a master
 * (tensorflow).  0 when the workers may start, CLI_EXIT_TRYAGAIN when the
 * master was not ready in time (the message names host, port and the last
 * error), or another exit status. */
int run_wait_master(const struct cli_global *g, const struct run_ready *r,
                    const muster_plan *plan);

/* run_lookup.c: getaddrinfo(host, port) for TCP in a thread of its own,
 * so that the caller can stop waiting for it.  NULL (errno set) when it
 * cannot start. */
struct lookup;
struct addrinfo;
struct lookup *lookup_start(const char *host, const char *port);
/* Readable once the lookup is done. */
int lookup_fd(const struct lookup *k);
/* getaddrinfo's return (EAI_INPROGRESS until done), its list in *list
 * (the lookup's) and, for EAI_SYSTEM, its errno in *saved. */
int lookup_result(const struct lookup *k, const struct addrinfo **list, int *saved);
/* The caller's last call: the lookup is freed now when done, else by its
 * thread when getaddrinfo returns. */
void lookup_end(struct lookup *k);

#endif
