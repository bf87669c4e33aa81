/* muster run: the workers' environments (run_env.c), their supervision
 * (run_supervise.c) and, with --elastic, their restarts as the cluster
 * changes (run_elastic.c, run_node.c). */
#ifndef MUSTER_CLI_RUN_H
#define MUSTER_CLI_RUN_H

#include <signal.h>
#include <sys/types.h>

#include "cli.h"

/* The SIGKILL that follows a SIGTERM to the workers, in seconds. */
#define RUN_GRACE_S 10

struct run_worker {
	char **envp;   /* the whole environment to exec with (run_env.c) */
	size_t kept;   /* envp[kept..] are the launch's own, malloc()ed */
	long rank;     /* global rank, for messages and prefixes */
	pid_t pid;     /* 0: not started or reaped */
	int out[2], err[2]; /* --tee-prefix pipes, -1 when unused */
	int status;    /* wait status once reaped */
};

struct run_plan {
	struct run_worker *w;
	long n;
	char **argv;   /* the command */
	int tee;       /* --tee-prefix */
	muster_result *res; /* its reserved port is released before rank 0 starts */
};

/* Fills every worker's envp from the launch (GPU slices of `gpus_per_proc`
 * when > 0), `set` ("NAME=value" strings, NULL-terminated, or NULL)
 * replacing the launch's variables of the same names or added after them;
 * p->res's reserved port, if any, goes to local rank 0.  0 or the exit
 * status (message printed). */
int run_build_env(struct run_plan *p, const muster_result *res, struct cli_launch *cl,
                  long gpus_per_proc, char *const *set);
void run_free_env(struct run_plan *p);

/* Before a worker's exec (async-signal-safe): default dispositions, but
 * for a SIGHUP ignored under nohup, and an empty signal mask. */
void run_clean_signals(void);

/* Starts the workers and waits for them; the exit status. */
int run_supervise(struct run_plan *p);

/* The pieces of run_supervise(), for a caller that starts and stops
 * generations of workers while it watches something else. */
struct tee;
struct pollfd;
struct run_sup {
	struct run_plan *p; /* the generation started last */
	int sfd;            /* signalfd of SIGCHLD, SIGINT, SIGTERM, SIGHUP */
	sigset_t old;       /* the signal mask to restore */
	pid_t pgid;         /* the workers' process group */
	long live;          /* workers not yet reaped */
	long first;         /* the worker that failed first, -1 */
	int signalled;      /* the first signal muster run got, 0 */
	int stopping;       /* exits are run_sup_stop()'s doing, not failures */
	long kill_at;       /* when SIGKILL follows a SIGTERM, 0: not pending */
	struct tee *tees;   /* --tee-prefix streams */
	struct pollfd *fds;
	struct tee **who;   /* the tee of each polled pipe */
};

/* Blocks the signals muster run handles (before any thread starts, so
 * that every thread inherits the mask) and opens their signalfd. */
int run_sup_open(struct run_sup *s);
void run_sup_close(struct run_sup *s);
/* Starts a generation: 0, or the exit status (what started is killed). */
int run_sup_start(struct run_sup *s, struct run_plan *p);
/* Waits once for a signal, a worker's exit or output, or `fd` (< 0: none)
 * and handles what came: signals are forwarded, the first failure stops
 * the others.  1 when `fd` is readable, 0 otherwise, -1 when poll fails. */
int run_sup_poll(struct run_sup *s, int fd);
/* SIGTERM to the workers' process group, SIGKILL RUN_GRACE_S seconds
 * later, until every worker is reaped; their exits are no failures. */
void run_sup_stop(struct run_sup *s);
/* After the generation: the rest of its output, its pipes closed. */
void run_sup_end(struct run_sup *s);
/* The first failure's status, else 128 + the signal, else 0. */
int run_sup_status(const struct run_sup *s);

/* run_node.c: this node's part in a result of the watch. */
enum node_part { NODE_TRAINS, NODE_WAITS, NODE_SPARE };
struct node_launch {
	enum node_part part;
	long nodes;      /* the cluster's training nodes */
	long trained;    /* those that train: the first --max-nodes */
	long group_rank; /* this node's */
	char *key;       /* NODE_TRAINS: its launch as one string, to compare */
	char note[640];  /* NODE_WAITS, NODE_SPARE: why, for stderr */
	char vars[3][48];
	char *set[4];    /* NODE_TRAINS: the world trimmed to `trained` nodes,
	                    for run_build_env() */
};
/* 0 with *n filled (free it with run_node_free()), or the exit status. */
int run_node_decide(struct node_launch *n, const muster_result *res, struct cli_launch *cl,
                    long min_nodes, long max_nodes);
void run_node_free(struct node_launch *n);

/* run_elastic.c: muster run --elastic. */
struct run_elastic_opts {
	long min_nodes, max_nodes; /* --min-nodes, --max-nodes */
	long settle_ms;            /* --settle-ms */
};
int run_elastic(const struct cli_global *g, struct cli_launch *cl,
                const struct run_elastic_opts *o, long gpus_per_proc, int tee, char **argv);

#endif
