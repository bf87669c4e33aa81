/* muster run: the workers' environments (run_env.c), the process that
 * starts and keeps them (run_keeper.c, run_sweep.c), their supervision
 * (run_supervise.c) and, with --elastic, their restarts as the cluster
 * changes (run_elastic.c, run_node.c). */
#ifndef MUSTER_CLI_RUN_H
#define MUSTER_CLI_RUN_H

#include <sched.h>
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
	cpu_set_t *cpus;  /* --numa-binding: the CPUs to run on; NULL: any */
	size_t cpus_size; /* its size in bytes (CPU_ALLOC_SIZE) */
};

struct run_plan {
	struct run_worker *w;
	long n;
	char **argv;   /* the command */
	int tee;       /* --tee-prefix */
	muster_result *res; /* its reserved port is released before rank 0 starts */
	int quiet;     /* -q: no notices */
	int numa;      /* --numa-binding: MUSTER_BIND_*; 0: none */
	int verbose;   /* -v: say what each worker is pinned to */
	long first_local; /* the LOCAL_RANK of w[0]: the processes of the host's tasks
	                     before this one's (a scheduler's several tasks a host) */
};

/* Fills the envp of the p->n workers (muster_plan_nproc()) from the launch
 * plan (GPU slices of `gpus_per_proc` when > 0, by local rank), `set`
 * ("NAME=value" strings, NULL-terminated, or NULL) replacing the plan's
 * variables of the same names or added after them; p->res's reserved
 * port, if any, goes to the first worker.  0 or the exit status (message
 * printed, naming `command`). */
int run_build_env(struct run_plan *p, const muster_plan *plan, const char *command,
                  long gpus_per_proc, char *const *set);
void run_free_env(struct run_plan *p);

/* run_numa.c: with p->numa, each worker's CPUs from the GPUs it drives
 * (of `d`, from muster_local_topology()): its --gpus-per-proc slice, else
 * the GPU at its local rank.  Workers without a GPU, or whose GPU sysfs
 * gives no NUMA node, run unpinned (one warning); a binding that leaves a
 * worker no CPU is an error.  0 or the exit status (message printed). */
int run_numa_plan(struct run_plan *p, const muster_devices *d, long gpus_per_proc,
                  const char *command);
/* In the worker, before its exec (async-signal-safe): its CPUs, if any;
 * 0, or -1 when the kernel refuses them. */
int run_pin(const struct run_worker *w);

/* Before a worker's exec (async-signal-safe): default dispositions, but
 * for a SIGHUP ignored under nohup, and an empty signal mask. */
void run_clean_signals(void);

/* run_keeper.c: the keeper, a process of muster run's that starts a
 * generation's workers, in a process group of its own (the keeper's id),
 * and is their parent and subreaper: what they leave behind comes to it,
 * and it kills all of it when the last worker has ended, when muster run
 * orders SIGKILL, and when muster run is gone (its end of the link
 * closes), however muster run ended.  The link is a SOCK_SEQPACKET
 * socket: muster run sends signal numbers (SIGKILL: end everything now;
 * another: pass it on to the workers), the keeper sends notes. */
struct run_note {
	int kind;  /* RUN_STARTED, RUN_ENDED or RUN_NOT_STARTED */
	int index; /* the worker's, in the plan */
	int value; /* its pid; its wait status; fork()'s errno */
};
enum { RUN_STARTED, RUN_ENDED, RUN_NOT_STARTED };
/* In the forked keeper, with `sfd` (the signalfd of SIGCHLD) and its end
 * of the link; never returns.  Async-signal-safe: muster run may have
 * threads (--elastic's watch). */
_Noreturn void run_keeper(struct run_plan *p, int sfd, int link);
void run_close_write_ends(struct run_worker *w);

/* run_sweep.c: ends everything under a subreaper: SIGKILL to every
 * process whose parent is the caller and, with group > 0, to every other
 * one in process group `group`, as /proc lists them, round after round as
 * the dying hand their children to the caller, each reaped and given to
 * `reaped`, until nothing is left that the caller may kill (another
 * user's process outlives it, as it would init's attempt) or 1 s passes
 * with nothing to reap.  `sfd`: a non-blocking signalfd of SIGCHLD, which
 * is blocked.  0, or -1 when /proc cannot be read.  Async-signal-safe. */
int run_end_under(pid_t group, int sfd, void (*reaped)(pid_t pid, int status, void *data),
                  void *data);

/* Starts the workers and waits for them; the exit status. */
int run_supervise(struct run_plan *p);

/* The pieces of run_supervise(), for a caller that starts and stops
 * generations of workers while it watches something else. */
struct tee;
struct pollfd;
struct run_sup {
	struct run_plan *p; /* the generation started last */
	int sfd;            /* signalfd of SIGCHLD, SIGINT, SIGTERM and SIGHUP
	                       (unless ignored: nohup) */
	sigset_t old;       /* the signal mask to restore */
	pid_t keeper;       /* the generation's keeper, 0 once reaped */
	int link;           /* muster run's end of the link to it, -1 */
	long live;          /* workers started and not yet ended */
	int failure;        /* the first failure's exit status, -1 */
	int signalled;      /* the first signal muster run got, 0 */
	int stopping;       /* exits are run_sup_stop()'s doing, not failures */
	long long kill_at;  /* when SIGKILL follows a SIGTERM (clock_now_ms()), 0: not pending */
	struct tee *tees;   /* --tee-prefix streams */
	struct pollfd *fds;
	struct tee **who;   /* the tee of each polled pipe */
};

/* Blocks the signals muster run handles (before any thread starts, so
 * that every thread inherits the mask), opens their signalfd and makes
 * muster run a subreaper (what a killed keeper kept comes to it). */
int run_sup_open(struct run_sup *s);
void run_sup_close(struct run_sup *s);
/* Starts a generation's keeper and, through it, its workers: 0, or the
 * exit status (what started is killed).  The generation runs until
 * s->keeper is 0. */
int run_sup_start(struct run_sup *s, struct run_plan *p);
/* Waits once for a signal, a note of the keeper's, a worker's output, or
 * `fd` (< 0: none) and handles what came: signals are passed on, the
 * first failure stops the others.  1 when `fd` is readable, 0 otherwise,
 * -1 when poll fails. */
int run_sup_poll(struct run_sup *s, int fd);
/* SIGTERM to the workers' process group, SIGKILL RUN_GRACE_S seconds
 * later, until the keeper has ended (and with it everything the workers
 * started); their exits are no failures. */
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
	muster_plan *plan; /* the launch's plan, NULL when there is none */
};
/* 0 with *n filled (free it with run_node_free(), also after a failure),
 * or the exit status. */
int run_node_decide(struct node_launch *n, const muster_result *res, struct cli_launch *cl,
                    long min_nodes, long max_nodes);
void run_node_free(struct node_launch *n);

/* run_elastic.c: muster run --elastic. */
struct run_elastic_opts {
	long min_nodes, max_nodes; /* --min-nodes, --max-nodes */
	long settle_ms;            /* --settle-ms */
};
int run_elastic(const struct cli_global *g, struct cli_launch *cl,
                const struct run_elastic_opts *o, long gpus_per_proc, int numa, int tee,
                char **argv);

#endif
