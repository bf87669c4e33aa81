# Shared by the slurm backend's tests: configs whose only entry is the
# slurm plugin, and `muster` runs under exactly the Slurm variables a case
# names.  Sourced by tests/slurm/*.sh after tests/lib/tap.sh's setup.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
require_plugin slurm

# conf NAME BODY: a muster.conf whose only entry is slurm with BODY.
conf() {
	printf 'chain = ( { plugin = "slurm"; config = { %s }; } );\n' "$2" >"$tmp/$1.conf"
	echo "$tmp/$1.conf"
}
plain=$(conf plain '')

# quote WORD: WORD as one single-quoted shell word.
quote() {
	printf '%s' "$1" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/"
}

# run_only CMD [VAR=VALUE...] [-- ARGS...]: the command CMD (shell words,
# evaluated) with ARGS, in an environment holding only the given
# variables and the harness's; sets rc, out and err as run_muster does.
run_only() {
	cmd=$1
	shift
	set -- "$@" --
	vars=""
	while [ "$1" != "--" ]; do
		vars="$vars $(quote "$1")"
		shift
	done
	shift
	args=""
	while [ $# -gt 1 ]; do
		args="$args $(quote "$1")"
		shift
	done
	rc=0
	eval "env -i PATH=\"\$PATH\" ASAN_OPTIONS=\"\$ASAN_OPTIONS\" \
		LSAN_OPTIONS=\"\${LSAN_OPTIONS:-}\" UBSAN_OPTIONS=\"\${UBSAN_OPTIONS:-}\" \
		MUSTER_PLUGIN_PATH=\"\$MUSTER_PLUGIN_PATH\" $vars $cmd $args" \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
	status=$rc
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	no_sanitizer_report "$cmd$args"
}

# slurm CONF [VAR=VALUE...] [-- MUSTER_ARGS...]: `muster -c CONF resolve`
# (or MUSTER_ARGS) under exactly the given variables.
slurm() {
	c=$1
	shift
	case " $* " in
	*" -- "*) ;;
	*) set -- "$@" -- resolve ;;
	esac
	run_only '"$MUSTER_BIN" -c "$c"' "$@"
}

# placed CONF [VAR=VALUE...]: what the answer tells a launch
# (tests/hpc/placement: placement, nodes, job, task, noted inputs).
placement="$MUSTER_TEST_BUILDDIR/tests/hpc/placement"
placed() {
	c=$1
	shift
	run_only '"$placement" -c "$c" --explain' "$@"
}

# peers [jax] -- VAR=VALUE...: what Lightning and JAX compute for the task
# of these variables (tests/slurm/peers.py), one line.
peers() {
	p=""
	[ "$1" = "--" ] || { p=$1; shift; }
	shift
	env -i "$@" /usr/bin/python3 "$MUSTER_TEST_SRCDIR/tests/slurm/peers.py" $p
}

# launch_line pytorch|jax DOTENV_FILE: the peers.py line of `muster env`'s
# output (JAX's coordinator without its port).
launch_line() {
	(
		set +u
		. "$2"
		if [ "$1" = jax ]; then
			echo "JAX_PROCESS_ID=$JAX_PROCESS_ID JAX_NUM_PROCESSES=$JAX_NUM_PROCESSES" \
				"JAX_COORDINATOR_HOST=${JAX_COORDINATOR_ADDRESS%:*}" \
				"JAX_LOCAL_DEVICE_IDS=${JAX_LOCAL_DEVICE_IDS-$LOCAL_RANK}"
		else
			echo "RANK=$RANK LOCAL_RANK=$LOCAL_RANK NODE_RANK=$NODE_RANK" \
				"LOCAL_WORLD_SIZE=$LOCAL_WORLD_SIZE WORLD_SIZE=$WORLD_SIZE MASTER_ADDR=$MASTER_ADDR"
		fi
	)
}

# expect_ranks WHAT CONF VAR=VALUE...: `muster env --for pytorch` and
# `--for jax` give this task what Lightning and JAX compute from its
# variables.  JAX's local device is checked where muster exports one.
expect_ranks() {
	what=$1
	c=$2
	shift 2
	for fw in pytorch jax; do
		want=$(peers "$fw" -- "$@" 2>&1)
		slurm "$c" "$@" -- env --for "$fw" --format dotenv
		got=$(LOCAL_RANK=${want##*=} launch_line "$fw" "$tmp/out")
		if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then
			pass "$what (--for $fw)"
		else
			fail "$what (--for $fw): exit $rc" "want: $want" "got:  $got"
		fi
	done
}

# expect_result WHAT WANT_RC WANT_JSON: the status, and stdout equal to
# WANT_JSON (key order included).
expect_result() {
	if [ "$rc" != "$2" ]; then
		fail "$1: exit $rc (want $2)"
	else
		expect_json "$3" "$1"
	fi
}

# expect_out_has WHAT FRAGMENT: the status is 0 and stdout holds FRAGMENT.
expect_out_has() {
	case "$rc:$out" in
	"0:"*"$2"*) pass "$1" ;;
	*) fail "$1: exit $rc" "want in stdout: $2" ;;
	esac
}
