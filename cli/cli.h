/*
 * The `muster` program: declarations shared by its small files.
 *
 * The program uses only the public API (<muster/muster.h>).  Each command
 * lives in its own cmd_*.c; argument helpers, output, logging and the
 * mapping of library codes to exit statuses each have their own file.
 */
#ifndef MUSTER_CLI_H
#define MUSTER_CLI_H

#include <stddef.h>
#include <stdio.h>

#include <muster/muster.h>

/* Exit statuses, documented in `muster --help` and muster(1). */
enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_NOTFOUND = 1, /* the chain answered notfound */
	CLI_EXIT_UNAVAIL = 2,  /* ... unavail */
	CLI_EXIT_TRYAGAIN = 3, /* ... tryagain */
	CLI_EXIT_CONFIG = 4,   /* configuration or plugin error */
	CLI_EXIT_NOENT = 5,    /* no such job or task; merge conflict */
	CLI_EXIT_PROBLEM = 6,  /* muster doctor found a problem */
	CLI_EXIT_USAGE = 64,   /* bad command line (sysexits EX_USAGE) */
	CLI_EXIT_SOFTWARE = 70 /* internal error, out of memory, write error */
};

/* What the global options asked for. */
struct cli_global {
	const char *config; /* -c FILE; NULL: $MUSTER_CONF or the default */
	int verbosity;      /* number of -v; -1: -q, errors only */
};

/* A command: its name, its one-line summary, its synopsis, its run
 * function.  argv[0] is the command's name; argv[1..] its arguments. */
struct cli_command {
	const char *name;
	const char *synopsis;
	const char *summary;
	const char *options; /* the options' help, one per line */
	int (*run)(const struct cli_global *g, int argc, char **argv);
};

extern const struct cli_command cli_commands[];
extern const size_t cli_command_count;

int cmd_resolve(const struct cli_global *g, int argc, char **argv);
int cmd_master(const struct cli_global *g, int argc, char **argv);
int cmd_accelerators(const struct cli_global *g, int argc, char **argv);
int cmd_topo(const struct cli_global *g, int argc, char **argv);
int cmd_tf_config(const struct cli_global *g, int argc, char **argv);
int cmd_plugins(const struct cli_global *g, int argc, char **argv);
int cmd_check(const struct cli_global *g, int argc, char **argv);
int cmd_reserve(const struct cli_global *g, int argc, char **argv);
int cmd_env(const struct cli_global *g, int argc, char **argv);
int cmd_hostfile(const struct cli_global *g, int argc, char **argv);
int cmd_run(const struct cli_global *g, int argc, char **argv);
int cmd_watch(const struct cli_global *g, int argc, char **argv);
int cmd_status(const struct cli_global *g, int argc, char **argv);
int cmd_doctor(const struct cli_global *g, int argc, char **argv);

/* usage.c */
int cli_usage(int to_stderr);          /* the program's help; exit status */
int cli_command_usage(const struct cli_command *cmd, int to_stderr);
const struct cli_command *cli_find_command(const char *name);
int cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

/* args.c: getopt_long over a command's arguments. */
struct option;
/* Restart getopt_long (for a command's own argument vector). */
void cli_getopt_reset(void);
/* What a command's switch over getopt_long leaves: -h/--help ('h') prints
 * the usage of `cmd` (0); '?' or ':' is reported, CLI_EXIT_USAGE.  `cmd`
 * NULL: the global options, whose switch takes 'h' itself. */
int cli_getopt_default(int c, char **argv, const char *cmd);
/* --format of a command that prints a table or JSON (status, topo,
 * doctor): *json set, 0; else CLI_EXIT_USAGE, the message naming `cmd`. */
int cli_parse_table_format(const char *cmd, const char *arg, int *json);
/* Parse "TYPE:ID" strictly (split at the last colon): TYPE non-empty, ID
 * a non-negative decimal integer.  *type is a malloc()ed copy for the
 * caller to free().  0 on success, else the exit status (the message is
 * printed). */
int cli_parse_task(const char *arg, char **type, long *id);

/* launch_opts.c: the options env, hostfile and run share. */
enum { CLI_OPT_FOR = 0x100, CLI_OPT_TASK, CLI_OPT_JOBS, CLI_OPT_NPROC };
#define CLI_LAUNCH_LONGOPTS \
	{ "for", required_argument, NULL, CLI_OPT_FOR }, \
	{ "task", required_argument, NULL, CLI_OPT_TASK }, \
	{ "jobs", required_argument, NULL, CLI_OPT_JOBS }, \
	{ "nproc-per-node", required_argument, NULL, CLI_OPT_NPROC }
struct cli_launch {
	muster_launch l;
	const char *command; /* for messages */
	const char *task;    /* --task as given */
	char *type;          /* its type, owned */
	const char *nproc;   /* --nproc-per-node as given: a count or "gpu" */
	int no_ifname;       /* env, run: --no-ifname */
	int doctor;          /* run: --doctor */
};
void cli_launch_init(struct cli_launch *cl, const char *command);
/* 0 when `c` is a shared option (now recorded), -1 when it is not. */
int cli_launch_option(struct cli_launch *cl, int c, const char *arg);
/* Parses what was recorded, --for one of `frameworks` (space-separated);
 * 0 or the exit status (message printed). */
int cli_launch_finish(struct cli_launch *cl, const char *frameworks);
/* The launch plan of `res`, its note said once on stderr (unless -q); 0
 * or the exit status (message printed). */
struct cli_global;
int cli_launch_plan(muster_plan **plan, const muster_result *res, const struct cli_launch *cl,
                    const struct cli_global *g);
/* The processes of the plan's own task into *n: 0, or the exit status
 * (the message names the missing task). */
int cli_plan_own_count(const muster_plan *plan, long *n);
void cli_launch_free(struct cli_launch *cl);
long cli_parse_count(const char *s, long max);
long cli_parse_ms(const char *opt, const char *arg, long max);

/* launch_net.c: the plan's network probe (lookups bounded by
 * CLI_NET_TIMEOUT_MS) unless --no-ifname: 0 or the exit status. */
enum { CLI_OPT_NO_IFNAME = 0x180, CLI_OPT_DOCTOR };
#define CLI_NET_TIMEOUT_MS 2000L
int cli_launch_network(muster_plan *plan, const struct cli_launch *cl, const struct cli_global *g);

/* local_accel.c: `accelerators --local`; sysroot NULL: $MUSTER_SYSROOT or /. */
int cli_print_local_devices(const char *sysroot);
/* topo_table.c: muster topo's table; 0 or the exit status. */
int topo_print_table(const struct cli_global *g, const muster_devices *d);

/* term.c: the terminal on stdout.  Its width: $COLUMNS, else the
 * terminal's; 0 (any) for neither. */
size_t cli_term_width(void);
/* Whether it takes escape sequences: a terminal, TERM set and not "dumb". */
int cli_term_capable(void);
/* Whether to colour: capable, and NO_COLOR unset or empty (no-color.org). */
int cli_term_color(void);

/* exitcode.c: print "muster: <message>" for a failed call; returns its
 * exit status. */
int cli_fail(int code, const muster_error *err);

/* log.c */
void cli_log(int level, const char *message, void *data);
void cli_options(muster_options *opts, const struct cli_global *g);
/* A line of the program's own at `level`, shown as the library's messages
 * are (-q: none, -v: info too); locked against other threads' lines. */
void cli_say(const struct cli_global *g, int level, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
/* A warning of the program's own, unless -q. */
void cli_warn(const struct cli_global *g, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* session.c: open the context (and resolve); print errors.  Return 0 or
 * the exit status to use. */
int cli_open(muster_ctx **ctx, const struct cli_global *g);
/* ... with MUSTER_CTX_* flags. */
int cli_open_flags(muster_ctx **ctx, const struct cli_global *g, unsigned flags);
int cli_open_resolve(muster_ctx **ctx, muster_result **res, const struct cli_global *g);
/* explain.c: ... and print on stderr why the chain answered as it did
 * (--explain), also when it failed. */
int cli_open_resolve_explain(muster_ctx **ctx, muster_result **res, const struct cli_global *g);

/* What a command asks of the result: a task (type NULL, id -1 when not
 * given), an rpc layer (NULL when not given) and format flags. */
struct cli_request {
	char *type;
	long id;
	const char *rpc_layer;
	unsigned flags;
	const struct cli_global *g; /* for the command's own warnings */
	int local;                  /* --local: this machine's devices, no resolve */
	const char *sysroot;        /* --sysroot DIR */
};
/* Turns the result into the one string a command prints. */
typedef int (*cli_print_fn)(char **out, const muster_result *res, const struct cli_request *req,
                            muster_error *err);

/* task.c: a command that resolves and prints one line about a task; it
 * takes --task TYPE:ID, --help and the `options` it names. */
enum { CLI_TASK_RPC_LAYER = 1, CLI_TASK_SPARSE = 2, CLI_TASK_LOCAL = 4 };
struct cli_task_command {
	const char *name;
	unsigned options; /* CLI_TASK_* */
	int task_required;
	cli_print_fn print;
};
/* Parses argv, resolves, prints; returns the exit status. */
int cli_task_command(const struct cli_task_command *cmd, const struct cli_global *g, int argc,
                     char **argv);

/* out.c: everything written to stdout goes through here; out_finish()
 * flushes and checks, and turns a write error into CLI_EXIT_SOFTWARE. */
void out_puts(const char *s);
/* Until called again with NULL, out_* writes to `f` instead of stdout
 * (a frame drawn in memory first, to be compared with the last). */
void out_capture(FILE *f);
/* Where out_* writes now. */
FILE *out_file(void);
void out_printf(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
/* Write text for a terminal: C0 controls, DEL, C1 controls and invalid
 * UTF-8 as \xHH; with `backslash`, the backslash itself as \\ (output
 * that must read back unambiguously). */
void cli_put_escaped(FILE *f, const char *s, int backslash);
/* A JSON string: quotes, backslashes and controls escaped, bytes that are
 * not UTF-8 as U+FFFD (JSON text is UTF-8). */
void cli_put_json(FILE *f, const char *s);
/* ... to stdout, backslashes doubled. */
void out_text(const char *s);
/* "muster: <message>" on stderr, escaped (backslashes kept). */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;
/* Print a library-owned string and a newline, then muster_free() it. */
void out_line_free(char *s);
int out_finish(int status);

#endif /* MUSTER_CLI_H */
