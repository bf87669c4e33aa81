# cli: the `muster` program.  It uses only the public API.
bin_PROGRAMS += cli/muster
cli_muster_SOURCES = \
	cli/cli.h \
	cli/main.c \
	cli/usage.c \
	cli/args.c \
	cli/exitcode.c \
	cli/log.c \
	cli/session.c \
	cli/task.c \
	cli/out.c \
	cli/table.c cli/table.h \
	cli/cmd_resolve.c \
	cli/cmd_master.c \
	cli/cmd_accelerators.c \
	cli/cmd_tf_config.c \
	cli/cmd_plugins.c \
	cli/cmd_check.c \
	cli/cmd_reserve.c \
	cli/cmd_watch.c
cli_muster_LDADD = core/libmuster.la

# Its tests: shell scripts driving the program against fixture configs.
TESTS += \
	tests/cli/usage.sh \
	tests/cli/static.sh \
	tests/cli/errors.sh \
	tests/cli/logging.sh \
	tests/cli/silent.sh \
	tests/cli/default-conf.sh \
	tests/cli/addresses.sh \
	tests/watch/config.sh
EXTRA_DIST += \
	tests/watch/config.sh \
	tests/watch/lib.sh \
	tests/cli/usage.sh \
	tests/cli/static.sh \
	tests/cli/errors.sh \
	tests/cli/logging.sh \
	tests/cli/silent.sh \
	tests/cli/default-conf.sh \
	tests/cli/addresses.sh \
	tests/cli/lib.sh \
	tests/cli/static.conf \
	tests/cli/sparse.conf \
	tests/cli/noself.conf \
	tests/cli/syntax-error.conf \
	tests/cli/bad-type.conf \
	tests/cli/strict-unknown-plugin.conf \
	tests/cli/unknown-plugin.conf \
	tests/cli/unknown-plugin-only.conf \
	tests/cli/tf-only.conf \
	tests/cli/conflict.conf \
	tests/cli/unknown-key.conf
