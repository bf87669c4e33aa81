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
	cli/term.c \
	cli/cmd_resolve.c \
	cli/cmd_master.c \
	cli/cmd_accelerators.c \
	cli/cmd_tf_config.c \
	cli/cmd_plugins.c \
	cli/cmd_check.c \
	cli/cmd_reserve.c \
	cli/launch_opts.c \
	cli/launch_net.c \
	cli/cmd_env.c \
	cli/cmd_hostfile.c \
	cli/run.h \
	cli/run_env.c \
	cli/run_numa.c \
	cli/run_keeper.c \
	cli/run_sweep.c \
	cli/run_supervise.c \
	cli/run_node.c \
	cli/run_elastic.c \
	cli/cmd_run.c \
	cli/doctor.h cli/doctor_report.c cli/doctor_launch.c cli/doctor_net.c \
	cli/doctor_port.c cli/doctor_proxy.c cli/noproxy.c cli/noproxy.h cli/cmd_doctor.c \
	cli/local_accel.c \
	cli/cmd_topo.c \
	cli/topo_table.c \
	cli/cmd_watch.c \
	cli/watch_metrics.c cli/watch_metrics.h \
	cli/status.h \
	cli/status_nodes.c \
	cli/status_table.c \
	cli/status_json.c \
	cli/cmd_status.c
cli_muster_LDADD = core/libmuster.la lib/libutil.la

# Its tests: shell scripts driving the program against fixture configs.
shell_tests += tests/cli/usage.sh
shell_tests += tests/cli/static.sh
shell_tests += tests/cli/errors.sh
shell_tests += tests/cli/include.sh
shell_tests += tests/cli/logging.sh
shell_tests += tests/cli/silent.sh
shell_tests += tests/cli/default-conf.sh
shell_tests += tests/cli/addresses.sh
shell_tests += tests/watch/config.sh
shell_tests += tests/watch/overflow.sh
shell_tests += tests/cli/status.sh
shell_tests += tests/watch/metrics.sh
shell_tests += tests/launch/elastic.sh
shell_tests += tests/cli/doctor.sh
shell_tests += tests/net/doctor.sh
shell_tests += tests/launch/topo.sh
shell_tests += tests/launch/numa-binding.sh
shell_tests += tests/net/env.sh
shell_tests += tests/net/torch.sh
EXTRA_DIST += \
	tests/net/lib.sh \
	tests/watch/lib.sh \
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
