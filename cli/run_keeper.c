/* The keeper: the process between muster run and a generation's workers.
 * It forks them into a process group of its own, is their parent and
 * subreaper, tells muster run when each starts and ends, passes on the
 * signals muster run orders, and ends the whole job -- what the workers
 * started too, whether or not it left their group -- when the last worker
 * has ended, when muster run orders SIGKILL, or when muster run is gone:
 * a SIGKILL of muster run itself leaves nothing behind.
 *
 * It is forked from a muster run that may have threads, so everything
 * here is async-signal-safe.  It blocks every signal (its signalfd still
 * sees SIGCHLD): the signals it passes on to the workers' group reach it
 * too, and only SIGKILL may end it. */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

struct keeper {
	struct run_plan *p;
	int sfd;    /* muster run's signalfd: SIGCHLD, and what it passed on
	               to the workers' group, which reaches the keeper too */
	int link;   /* to muster run */
	pid_t self; /* also the workers' process group */
	long live;  /* workers not yet reaped */
};

/* libc keeps the signals below SIGRTMIN for itself and refuses to touch
 * them, yet an ignored one is inherited through exec: reset it directly. */
static void reset_reserved(int sig)
{
	/* The kernel's sigaction, all zero: SIG_DFL, no flags, empty mask. */
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		unsigned long mask;
	} kdfl;
	memset(&kdfl, 0, sizeof(kdfl));
	syscall(SYS_rt_sigaction, sig, &kdfl, NULL, sizeof(kdfl.mask));
}

void run_clean_signals(void)
{
	struct sigaction dfl, hup;
	sigset_t none;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGHUP, NULL, &hup);
	for (int s = 1; s < NSIG; s++) /* an ignored signal stays ignored across exec */
		if (s != SIGKILL && s != SIGSTOP && !(s == SIGHUP && hup.sa_handler == SIG_IGN) &&
		    sigaction(s, &dfl, NULL) != 0)
			reset_reserved(s);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* `s` after the first `at` bytes of `msg`, cut to fit; the new length. */
static size_t append(char *msg, size_t at, size_t size, const char *s)
{
	size_t n = strlen(s);
	if (n > size - at)
		n = size - at;
	memcpy(msg + at, s, n);
	return at + n;
}

/* Why exec failed (err < 0: the pinning before it), as one write (workers failing together do not mix
 * their lines) of fixed pieces: strerror() is not async-signal-safe. */
static void exec_failed(const char *cmd, int err)
{
	const char *why = err == ENOENT   ? ": not found"
	                  : err == EACCES ? ": permission denied"
	                  : err < 0       ? ": the kernel refuses its --numa-binding CPUs"
	                                  : "";
	char msg[512];
	size_t len = append(msg, 0, sizeof(msg) - 1, "muster: run: cannot run ");

	len = append(msg, len, sizeof(msg) - 1, cmd);
	len = append(msg, len, sizeof(msg) - 1, why);
	msg[len++] = '\n';
	if (write(2, msg, len) < 0) /* nowhere left to say it */
		return;
}

/* In the worker between fork and exec. */
static _Noreturn void start_worker(const struct keeper *k, long i)
{
	const struct run_worker *w = &k->p->w[i];
	int saved;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != k->self) /* the keeper died before the line above */
		_exit(128 + SIGKILL);
	setpgid(0, k->self);
	run_clean_signals();
	if (k->p->tee && (dup2(w->out[1], 1) < 0 || dup2(w->err[1], 2) < 0))
		_exit(126);
	if (run_pin(w) != 0) {
		exec_failed(k->p->argv[0], -1);
		_exit(126);
	}
	execvpe(k->p->argv[0], k->p->argv, w->envp);
	saved = errno;
	exec_failed(k->p->argv[0], saved);
	_exit(saved == ENOENT ? 127 : 126);
}

void run_close_write_ends(struct run_worker *w)
{
	if (w->out[1] >= 0)
		close(w->out[1]);
	if (w->err[1] >= 0)
		close(w->err[1]);
	w->out[0] = w->out[1] = w->err[0] = w->err[1] = -1;
}

static void tell(const struct keeper *k, int kind, long i, int value)
{
	struct run_note n = { kind, (int)i, value };
	/* When muster run is gone there is no one to tell, and its end of the
	 * link, closed, says so to the loop. */
	if (send(k->link, &n, sizeof(n), MSG_NOSIGNAL) < 0)
		return;
}

/* A process reaped: a worker's end is told. */
static void reaped(pid_t pid, int st, void *data)
{
	struct keeper *k = data;
	for (long i = 0; i < k->p->n; i++) {
		if (k->p->w[i].pid == pid) {
			tell(k, RUN_ENDED, i, st);
			k->p->w[i].pid = 0;
			k->live--;
			return;
		}
	}
}

/* Reaps what has ended, waiting for one first with `block`; how many. */
static int reap(struct keeper *k, int block)
{
	pid_t pid;
	int st, n = 0;
	while ((pid = waitpid(-1, &st, block ? 0 : WNOHANG)) > 0) {
		block = 0;
		reaped(pid, st, k);
		n++;
	}
	return n;
}

/* SIGKILL to everything of the job: the workers' group, and whatever
 * comes to the keeper as the processes above it die. */
static _Noreturn void end_all(struct keeper *k)
{
	if (run_end_under(k->self, k->sfd, reaped, k) < 0) {
		/* No /proc: the workers at least, by pid; what they started
		 * goes to muster run (a subreaper) or init. */
		for (long i = 0; i < k->p->n; i++)
			if (k->p->w[i].pid > 0)
				kill(k->p->w[i].pid, SIGKILL);
		while (k->live > 0 && reap(k, 1) > 0)
			;
	}
	_exit(0);
}

/* A signal muster run got, to the workers' group (the keeper is in it and
 * blocks it), and to a worker that left the group, by pid. */
static void pass_on(const struct keeper *k, int sig)
{
	kill(-k->self, sig);
	for (long i = 0; i < k->p->n; i++) {
		pid_t pid = k->p->w[i].pid;
		if (pid > 0 && getpgid(pid) != k->self)
			kill(pid, sig);
	}
}

/* An order from muster run: 0, or -1 when it is gone or orders SIGKILL. */
static int obey(const struct keeper *k)
{
	int sig;
	ssize_t got = recv(k->link, &sig, sizeof(sig), MSG_DONTWAIT);

	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (got != (ssize_t)sizeof(sig) || sig == SIGKILL)
		return -1;
	pass_on(k, sig);
	return 0;
}

_Noreturn void run_keeper(struct run_plan *p, int sfd, int link)
{
	struct keeper k = { p, sfd, link, getpid(), 0 };
	struct signalfd_siginfo si;
	sigset_t all;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	/* Out of muster run's group too: a SIGKILL to it (a shell's kill -9 %1)
	 * does not take the keeper along. */
	setpgid(0, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (long i = 0; p->tee && i < p->n; i++) { /* muster run's to read */
		close(p->w[i].out[0]);
		close(p->w[i].err[0]);
	}
	for (long i = 0; i < p->n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			tell(&k, RUN_NOT_STARTED, i, errno);
			end_all(&k);
		}
		if (pid == 0)
			start_worker(&k, i);
		setpgid(pid, k.self); /* also here: no race with the worker's own call */
		p->w[i].pid = pid;
		k.live++;
		tell(&k, RUN_STARTED, i, pid);
		if (p->tee)
			run_close_write_ends(&p->w[i]);
	}
	while (k.live > 0) {
		struct pollfd fds[2] = { { .fd = sfd, .events = POLLIN },
			                 { .fd = link, .events = POLLIN } };
		if (poll(fds, 2, -1) < 0 || (fds[1].revents && obey(&k) < 0))
			break;
		/* SIGCHLD, and what it passed on to its own group: read and dropped. */
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		reap(&k, 0);
	}
	end_all(&k);
}
