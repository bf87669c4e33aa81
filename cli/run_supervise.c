/* Starting muster run's workers and watching them: signals are forwarded,
 * the first failure stops the others (SIGTERM, then SIGKILL after
 * RUN_GRACE_S seconds) and becomes the exit status.  Workers die with
 * muster run (PR_SET_PDEATHSIG), and sit in a process group of their own
 * so that a terminal's ^C reaches them once, through muster run.
 * run_supervise() runs one generation; run_elastic.c uses the pieces. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

#define LINE_MAX_BYTES 65536

/* A --tee-prefix stream: what is read but not yet a whole line. */
struct tee {
	int fd;
	FILE *to;
	long rank;
	char buf[LINE_MAX_BYTES];
	size_t len;
};

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

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

/* Why exec failed, as one write (workers failing together do not mix
 * their lines) of fixed pieces: strerror() is not async-signal-safe. */
static void exec_failed(const char *cmd, int err)
{
	const char *why = err == ENOENT   ? ": not found"
	                  : err == EACCES ? ": permission denied"
	                                  : "";
	char msg[512];
	size_t len = append(msg, 0, sizeof(msg) - 1, "muster: run: cannot run ");

	len = append(msg, len, sizeof(msg) - 1, cmd);
	len = append(msg, len, sizeof(msg) - 1, why);
	msg[len++] = '\n';
	if (write(2, msg, len) < 0) /* nowhere left to say it */
		return;
}

/* In the child between fork and exec: only async-signal-safe calls. */
static void start_child(const struct run_plan *p, long i, pid_t parent, pid_t pgid)
{
	const struct run_worker *w = &p->w[i];
	int saved;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent) /* muster run died before the line above */
		_exit(128 + SIGKILL);
	setpgid(0, pgid);
	run_clean_signals();
	if (p->tee && (dup2(w->out[1], 1) < 0 || dup2(w->err[1], 2) < 0))
		_exit(126);
	execvpe(p->argv[0], p->argv, w->envp);
	saved = errno;
	exec_failed(p->argv[0], saved);
	_exit(saved == ENOENT ? 127 : 126);
}

static void signal_live(struct run_plan *p, int sig)
{
	for (long i = 0; i < p->n; i++)
		if (p->w[i].pid > 0)
			kill(p->w[i].pid, sig);
}

static int status_code(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void report_failure(const struct run_plan *p, const struct run_worker *w, long live)
{
	char how[96];
	if (WIFEXITED(w->status))
		snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(w->status));
	else
		snprintf(how, sizeof(how), "was killed by signal %d (%s)", WTERMSIG(w->status),
		         strsignal(WTERMSIG(w->status)));
	fflush(stdout);
	cli_error("run: rank %ld (pid %ld) %s; stopping the other %ld of %ld workers", w->rank,
	          (long)w->pid, how, live, p->n);
}

/* Whole lines of the buffer, each with "[RANK]: " in front; with `all`,
 * the unfinished last line too. */
static void tee_emit(struct tee *t, int all)
{
	size_t start = 0;
	for (size_t i = 0; i < t->len; i++) {
		if (t->buf[i] == '\n' || i + 1 == sizeof(t->buf) || (all && i + 1 == t->len)) {
			fprintf(t->to, "[%ld]: %.*s%s", t->rank, (int)(i + 1 - start), t->buf + start,
			        t->buf[i] == '\n' ? "" : "\n");
			start = i + 1;
		}
	}
	memmove(t->buf, t->buf + start, t->len - start);
	t->len -= start;
	fflush(t->to);
}

/* 1: read some, 0: nothing to read now, -1: the pipe is closed. */
static int tee_read(struct tee *t)
{
	ssize_t got = read(t->fd, t->buf + t->len, sizeof(t->buf) - t->len);
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (got > 0) {
		t->len += (size_t)got;
		tee_emit(t, 0);
		return 1;
	}
	tee_emit(t, 1);
	close(t->fd);
	t->fd = -1;
	return -1;
}

/* The read ends belong to the tees from here on, the write ends to the
 * workers until they start. */
static int open_pipes(struct run_plan *p, struct tee *tees)
{
	for (long i = 0; i < p->n; i++) {
		struct run_worker *w = &p->w[i];
		if (pipe2(w->out, O_CLOEXEC) < 0)
			return -1;
		tees[2 * i] = (struct tee){ .fd = w->out[0], .to = stdout, .rank = w->rank };
		if (pipe2(w->err, O_CLOEXEC) < 0)
			return -1;
		tees[2 * i + 1] = (struct tee){ .fd = w->err[0], .to = stderr, .rank = w->rank };
	}
	return 0;
}

static void close_write_ends(struct run_worker *w)
{
	if (w->out[1] >= 0)
		close(w->out[1]);
	if (w->err[1] >= 0)
		close(w->err[1]);
	w->out[0] = w->out[1] = w->err[0] = w->err[1] = -1;
}

/* SIGKILL for every worker left, by pid and by group (a worker's own
 * children too). */
static void kill_all(struct run_sup *s)
{
	signal_live(s->p, SIGKILL);
	if (s->live > 0) /* an unreaped member keeps the group's id from reuse */
		kill(-s->pgid, SIGKILL);
}

static void reap(struct run_sup *s)
{
	struct run_plan *p = s->p;
	pid_t pid;
	int st;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (long i = 0; p != NULL && i < p->n; i++) {
			struct run_worker *w = &p->w[i];
			if (w->pid != pid)
				continue;
			w->status = st;
			s->live--;
			if (s->first < 0 && !s->stopping && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
				s->first = i;
				report_failure(p, w, s->live);
				w->pid = 0;
				signal_live(p, SIGTERM);
				if (s->kill_at == 0)
					s->kill_at = now_ms() + RUN_GRACE_S * 1000L;
			}
			w->pid = 0;
			break;
		}
	}
}

static void on_signal(struct run_sup *s)
{
	struct signalfd_siginfo si;
	while (read(s->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			reap(s);
			continue;
		}
		if (s->signalled == 0)
			s->signalled = (int)si.ssi_signo;
		if (s->live == 0)
			continue;
		signal_live(s->p, (int)si.ssi_signo);
		if (s->kill_at == 0)
			s->kill_at = now_ms() + RUN_GRACE_S * 1000L;
	}
}

static int start_all(struct run_sup *s)
{
	struct run_plan *p = s->p;
	pid_t parent = getpid();
	s->pgid = 0;
	for (long i = 0; i < p->n; i++) {
		if (i == 0 && p->res) /* rank 0 binds the reserved port: free it at the last moment */
			muster_result_release_port(p->res);
		pid_t pid = fork();
		if (pid < 0) {
			cli_error("run: cannot start worker %ld: %s", i, strerror(errno));
			kill_all(s);
			return -1;
		}
		if (pid == 0)
			start_child(p, i, parent, s->pgid);
		setpgid(pid, s->pgid); /* also here: no race with the child's own call */
		if (s->pgid == 0)
			s->pgid = pid;
		p->w[i].pid = pid;
		s->live++;
		if (p->tee)
			close_write_ends(&p->w[i]);
	}
	return 0;
}

int run_sup_open(struct run_sup *s)
{
	sigset_t mask;

	memset(s, 0, sizeof(*s));
	s->first = -1;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, &s->old) < 0 ||
	    (s->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		cli_error("run: cannot watch signals: %s", strerror(errno));
		return CLI_EXIT_SOFTWARE;
	}
	/* A script's background job starts with SIGINT ignored, which would
	 * discard it before signalfd sees it; an ignored SIGHUP (nohup) stays
	 * ignored, so the workers outlive a hang-up as muster run would. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	return 0;
}

void run_sup_close(struct run_sup *s)
{
	close(s->sfd);
	sigprocmask(SIG_SETMASK, &s->old, NULL);
}

int run_sup_start(struct run_sup *s, struct run_plan *p)
{
	size_t ntee = p->tee ? 2 * (size_t)p->n : 0;

	s->p = p;
	s->first = -1;
	s->kill_at = 0;
	s->fds = malloc((2 + ntee) * sizeof(*s->fds));
	s->who = malloc((ntee + 1) * sizeof(*s->who));
	if (ntee && (s->tees = calloc(ntee, sizeof(*s->tees))) != NULL)
		for (size_t i = 0; i < ntee; i++) /* none open: run_sup_end() must not touch fd 0 */
			s->tees[i].fd = -1;
	if (s->fds == NULL || s->who == NULL || (ntee && (s->tees == NULL ||
	                                                  open_pipes(p, s->tees) < 0))) {
		cli_error("run: cannot make the output pipes: %s", strerror(errno));
		return CLI_EXIT_SOFTWARE;
	}
	fflush(stdout);
	fflush(stderr);
	return start_all(s) == 0 ? 0 : CLI_EXIT_SOFTWARE;
}

int run_sup_poll(struct run_sup *s, int fd)
{
	struct pollfd local[2], *fds = s->fds ? s->fds : local;
	long ntee = s->tees ? 2 * s->p->n : 0;
	nfds_t n = 0;
	int timeout = -1;

	fds[n++] = (struct pollfd){ .fd = s->sfd, .events = POLLIN };
	fds[n++] = (struct pollfd){ .fd = fd, .events = POLLIN }; /* fd < 0: ignored */
	for (long i = 0; i < ntee; i++) {
		if (s->tees[i].fd >= 0) {
			s->who[n - 2] = &s->tees[i];
			fds[n++] = (struct pollfd){ .fd = s->tees[i].fd, .events = POLLIN };
		}
	}
	if (s->kill_at) {
		long left = s->kill_at - now_ms();
		timeout = left > 0 ? (int)left : 0;
	}
	int ready = poll(fds, n, timeout);
	if (ready < 0 && errno != EINTR)
		return -1;
	if (s->kill_at && now_ms() >= s->kill_at) {
		kill_all(s);
		s->kill_at = 0;
	}
	for (nfds_t i = 2; ready > 0 && i < n; i++)
		if (fds[i].revents)
			tee_read(s->who[i - 2]);
	if (ready > 0 && fds[0].revents)
		on_signal(s);
	return ready > 0 && (fds[1].revents & POLLIN);
}

void run_sup_stop(struct run_sup *s)
{
	s->stopping = 1;
	if (s->live > 0) {
		kill(-s->pgid, SIGTERM);
		if (s->kill_at == 0)
			s->kill_at = now_ms() + RUN_GRACE_S * 1000L;
	}
	while (s->live > 0 && run_sup_poll(s, -1) >= 0) /* else run_sup_end() waits */
		;
	s->stopping = 0;
	s->kill_at = 0;
}

void run_sup_end(struct run_sup *s)
{
	long ntee = s->tees ? 2 * s->p->n : 0;

	if (s->live > 0) { /* poll failed: nothing to watch with, so wait */
		kill_all(s);
		while (s->live > 0 && wait(NULL) > 0)
			s->live--;
	}
	/* What the workers wrote before they ended; a descendant that keeps a
	 * pipe open does not hold muster run. */
	for (long i = 0; i < ntee; i++) {
		struct tee *t = &s->tees[i];
		if (t->fd < 0)
			continue;
		fcntl(t->fd, F_SETFL, O_NONBLOCK);
		while (tee_read(t) == 1)
			;
		if (t->fd >= 0) {
			tee_emit(t, 1);
			close(t->fd);
		}
	}
	for (long i = 0; s->p && s->p->tee && i < s->p->n; i++)
		close_write_ends(&s->p->w[i]);
	free(s->tees);
	free(s->fds);
	free(s->who);
	s->tees = NULL;
	s->fds = NULL;
	s->who = NULL;
}

int run_sup_status(const struct run_sup *s)
{
	if (s->first >= 0)
		return status_code(s->p->w[s->first].status);
	return s->signalled ? 128 + s->signalled : 0;
}

int run_supervise(struct run_plan *p)
{
	struct run_sup s;
	int rc = run_sup_open(&s);

	if (rc != 0)
		return rc;
	int started = run_sup_start(&s, p);
	while (s.live > 0 && run_sup_poll(&s, -1) >= 0)
		;
	run_sup_end(&s);
	run_sup_close(&s);
	return started != 0 ? started : run_sup_status(&s);
}
