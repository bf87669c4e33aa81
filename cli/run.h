/* muster run: the workers' environments (run_env.c) and their supervision
 * (run_supervise.c). */
#ifndef MUSTER_CLI_RUN_H
#define MUSTER_CLI_RUN_H

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
 * when > 0); 0 or the exit status (message printed). */
int run_build_env(struct run_plan *p, const muster_result *res, struct cli_launch *cl,
                  long gpus_per_proc);
void run_free_env(struct run_plan *p);

/* Starts the workers and waits for them; the exit status. */
int run_supervise(struct run_plan *p);

#endif
