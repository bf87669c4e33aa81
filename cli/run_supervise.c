/* Watching muster run's workers: signals muster run gets are passed on,
 * the first failure stops the others (SIGTERM, then SIGKILL after
 * RUN_GRACE_S seconds) and becomes the exit status.  The workers are the
 * keeper's (run_keeper.c): it starts them in a process group of their own,
 * so that a terminal's ^C reaches them once, through muster run, and ends
 * what they leave behind; muster run orders it and reads its notes.
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
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/clock.h"
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

static int status_code(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* "was killed by signal 9 (Killed)", "exited with status 3" */
static void describe(char *how, size_t size, int st)
{
	if (WIFEXITED(st))
		snprintf(how, size, "exited with status %d", WEXITSTATUS(st));
	else
		snprintf(how, size, "was killed by signal %d (%s)", WTERMSIG(st),
		         strsignal(WTERMSIG(st)));
}

static void report_failure(const struct run_plan *p, const struct run_worker *w, long live)
{
	char how[96];
	describe(how, sizeof(how), w->status);
	fflush(stdout);
	cli_error("run: rank %ld (pid %ld) %s; stopping the other %ld of %ld workers", w->rank,
	          (long)w->pid, how, live, p->n);
}

/* One of the signals muster run watches. */
static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

/* A stop, not a failure: muster run was asked to end and passes it on. */
static void report_signal(const struct run_sup *s, int sig)
{
	char message[160];
	if (s->p->quiet)
		return;
	snprintf(message, sizeof(message), "run: stopped by %s: passing it on to the %ld running "
	         "worker%s (what is left %d s later gets SIGKILL)", signal_name(sig), s->live,
	         s->live == 1 ? "" : "s", RUN_GRACE_S);
	fflush(stdout);
	cli_log(MUSTER_LOG_NOTICE, message, NULL);
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

/* An order to the keeper: a signal to pass on to the workers, or SIGKILL
 * for the whole job.  Never waits: a keeper too busy to read is ending. */
static void order(struct run_sup *s, int sig)
{
	if (s->link >= 0 && send(s->link, &sig, sizeof(sig), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		return;
}

static void start_grace(struct run_sup *s)
{
	if (s->kill_at == 0)
		s->kill_at = clock_now_ms() + RUN_GRACE_S * 1000L;
}

/* A worker ended: the first failure, unless muster run is stopping them
 * or was stopped itself, stops the others. */
static void on_end(struct run_sup *s, long i, int st)
{
	struct run_worker *w = &s->p->w[i];

	w->status = st;
	s->live--;
	if (s->failure < 0 && !s->stopping && !s->signalled &&
	    !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
		s->failure = status_code(st);
		report_failure(s->p, w, s->live);
		order(s, SIGTERM);
		start_grace(s);
	}
	w->pid = 0;
}

/* A note of the keeper's; -1 when it is one that ends the start. */
static int on_note(struct run_sup *s, const struct run_note *n)
{
	if (n->index < 0 || n->index >= s->p->n)
		return 0;
	if (n->kind == RUN_STARTED) {
		s->p->w[n->index].pid = n->value;
		s->live++;
	} else if (n->kind == RUN_ENDED && s->p->w[n->index].pid > 0) {
		on_end(s, n->index, n->value);
	} else if (n->kind == RUN_NOT_STARTED) {
		cli_error("run: cannot start worker %d: %s", n->index, strerror(n->value));
		return -1;
	}
	return 0;
}

/* The notes that wait; `flags` 0 to wait for each until the keeper ends. */
static void read_notes(struct run_sup *s, int flags)
{
	struct run_note n;
	ssize_t got;
	while (s->link >= 0 && (got = recv(s->link, &n, sizeof(n), flags)) != 0) {
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (got == (ssize_t)sizeof(n))
			on_note(s, &n);
		else
			break;
	}
	if (s->link >= 0) { /* the keeper has ended: nothing more to read or order */
		close(s->link);
		s->link = -1;
	}
}

static void ignore_reaped(pid_t pid, int st, void *data)
{
	(void)pid;
	(void)st;
	(void)data;
}

/* Whatever came to muster run, a subreaper too, once the keeper was
 * killed: SIGKILL to all of it.  Its own signalfd of SIGCHLD, so that
 * the signals that muster run passes on wait for it in s->sfd. */
static void sweep(void)
{
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd >= 0) {
		run_end_under(0, sfd, ignore_reaped, NULL);
		close(sfd);
	}
}

static void on_keeper_end(struct run_sup *s, int st)
{
	pid_t pid = s->keeper;
	char how[96];

	s->keeper = 0;
	read_notes(s, MSG_DONTWAIT); /* what it told before it ended */
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	/* Killed: its workers died with it (PR_SET_PDEATHSIG), what they
	 * started came here. */
	describe(how, sizeof(how), st);
	fflush(stdout);
	cli_error("run: the workers' keeper (pid %ld) %s; its %ld running workers died with it, "
	          "what they started is killed", (long)pid, how, s->live);
	for (long i = 0; i < s->p->n; i++)
		s->p->w[i].pid = 0;
	s->live = 0;
	if (s->failure < 0 && !s->stopping && !s->signalled)
		s->failure = status_code(st);
	sweep();
}

static void reap(struct run_sup *s)
{
	pid_t pid;
	int st;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		if (pid == s->keeper)
			on_keeper_end(s, st);
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
		report_signal(s, (int)si.ssi_signo);
		order(s, (int)si.ssi_signo);
		start_grace(s);
	}
}

/* The keeper's notes that its workers started: 0, or -1 (the keeper
 * could not start them all and ends those it did). */
static int wait_started(struct run_sup *s)
{
	struct run_note n;
	for (long started = 0; started < s->p->n;) {
		if (recv(s->link, &n, sizeof(n), 0) != (ssize_t)sizeof(n)) {
			cli_error("run: the workers' keeper ended before it started them");
			return -1;
		}
		if (on_note(s, &n) < 0)
			return -1;
		started += n.kind == RUN_STARTED;
	}
	return 0;
}

/* The keeper, which starts the workers; -1 (message printed) when it
 * cannot start them all. */
static int start_keeper(struct run_sup *s)
{
	struct run_plan *p = s->p;
	int link[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, link) < 0) {
		cli_error("run: cannot start the workers' keeper: %s", strerror(errno));
		return -1;
	}
	/* Rank 0 binds the reserved port: freed at the last moment, and before
	 * the fork, or the keeper would hold it. */
	muster_result_release_port(p->res);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		close(link[0]);
		run_keeper(p, s->sfd, link[1]);
	}
	close(link[1]);
	if (pid < 0) {
		cli_error("run: cannot start the workers' keeper: %s", strerror(errno));
		close(link[0]);
		return -1;
	}
	s->keeper = pid;
	s->link = link[0];
	for (long i = 0; p->tee && i < p->n; i++) /* the workers' now */
		run_close_write_ends(&p->w[i]);
	return wait_started(s);
}

int run_sup_open(struct run_sup *s)
{
	struct sigaction hup;
	sigset_t mask;

	memset(s, 0, sizeof(*s));
	s->failure = -1;
	s->link = -1;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	/* An ignored SIGHUP (nohup) stays ignored, so that the workers outlive
	 * a hang-up as muster run does: blocked, it would reach the signalfd. */
	sigaction(SIGHUP, NULL, &hup);
	if (hup.sa_handler != SIG_IGN)
		sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, &s->old) < 0 ||
	    (s->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		cli_error("run: cannot watch signals: %s", strerror(errno));
		return CLI_EXIT_SOFTWARE;
	}
	/* A script's background job starts with SIGINT ignored, which would
	 * discard it before signalfd sees it. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/* A killed keeper's workers die with it; what they started comes here. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
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
	s->failure = -1;
	s->live = 0;
	s->kill_at = 0;
	s->fds = malloc((3 + ntee) * sizeof(*s->fds));
	s->who = malloc((ntee + 1) * sizeof(*s->who));
	if (ntee && (s->tees = calloc(ntee, sizeof(*s->tees))) != NULL)
		for (size_t i = 0; i < ntee; i++) /* none open: run_sup_end() must not touch fd 0 */
			s->tees[i].fd = -1;
	if (s->fds == NULL || s->who == NULL || (ntee && (s->tees == NULL ||
	                                                  open_pipes(p, s->tees) < 0))) {
		cli_error("run: cannot make the output pipes: %s", strerror(errno));
		return CLI_EXIT_SOFTWARE;
	}
	if (start_keeper(s) == 0)
		return 0;
	s->stopping = 1; /* the ends of those it started are no failures */
	return CLI_EXIT_SOFTWARE;
}

int run_sup_poll(struct run_sup *s, int fd)
{
	struct pollfd local[3], *fds = s->fds ? s->fds : local;
	long ntee = s->tees ? 2 * s->p->n : 0;
	nfds_t n = 0;
	int timeout = -1;

	fds[n++] = (struct pollfd){ .fd = s->sfd, .events = POLLIN };
	fds[n++] = (struct pollfd){ .fd = fd, .events = POLLIN }; /* fd < 0: ignored */
	fds[n++] = (struct pollfd){ .fd = s->link, .events = POLLIN };
	for (long i = 0; i < ntee; i++) {
		if (s->tees[i].fd >= 0) {
			s->who[n - 3] = &s->tees[i];
			fds[n++] = (struct pollfd){ .fd = s->tees[i].fd, .events = POLLIN };
		}
	}
	if (s->kill_at) {
		long long left = s->kill_at - clock_now_ms();
		timeout = left > 0 ? (int)left : 0;
	}
	int ready = poll(fds, n, timeout);
	if (ready < 0 && errno != EINTR)
		return -1;
	if (s->kill_at && clock_now_ms() >= s->kill_at) {
		order(s, SIGKILL);
		s->kill_at = 0;
	}
	for (nfds_t i = 3; ready > 0 && i < n; i++)
		if (fds[i].revents)
			tee_read(s->who[i - 3]);
	if (ready > 0 && fds[2].revents)
		read_notes(s, MSG_DONTWAIT);
	if (ready > 0 && fds[0].revents)
		on_signal(s);
	return ready > 0 && (fds[1].revents & POLLIN);
}

void run_sup_stop(struct run_sup *s)
{
	s->stopping = 1;
	if (s->live > 0) {
		order(s, SIGTERM);
		start_grace(s);
	}
	while (s->keeper > 0 && run_sup_poll(s, -1) >= 0) /* else run_sup_end() waits */
		;
	s->stopping = 0;
	s->kill_at = 0;
}

void run_sup_end(struct run_sup *s)
{
	long ntee = s->tees ? 2 * s->p->n : 0;

	if (s->keeper > 0) { /* poll failed: nothing to watch with, so wait */
		int st = 0;
		order(s, SIGKILL);
		read_notes(s, 0);
		while (waitpid(s->keeper, &st, 0) < 0 && errno == EINTR)
			;
		on_keeper_end(s, st);
	}
	/* What the workers wrote before they ended. */
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
		run_close_write_ends(&s->p->w[i]);
	free(s->tees);
	free(s->fds);
	free(s->who);
	s->tees = NULL;
	s->fds = NULL;
	s->who = NULL;
}

int run_sup_status(const struct run_sup *s)
{
	if (s->failure >= 0)
		return s->failure;
	return s->signalled ? 128 + s->signalled : 0;
}

int run_supervise(struct run_plan *p)
{
	struct run_sup s;
	int rc = run_sup_open(&s);

	if (rc != 0)
		return rc;
	int started = run_sup_start(&s, p);
	while (s.keeper > 0 && run_sup_poll(&s, -1) >= 0)
		;
	run_sup_end(&s);
	run_sup_close(&s);
	return started != 0 ? started : run_sup_status(&s);
}
