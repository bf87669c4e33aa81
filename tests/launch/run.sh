#!/bin/sh
# muster run with real processes: one process is exec'd; a failure stops
# the siblings and becomes the exit status; signals are forwarded as they
# came; kill -9 of muster run leaves no worker; workers start clean.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
fixtures=$MUSTER_TEST_SRCDIR/tests/cli

conf=$MUSTER_TEST_SRCDIR/tests/launch/cluster.conf
M="$MUSTER_BIN -c $conf"

# wait_files N PATTERN: up to 20 s for N files matching $tmp/PATTERN.
wait_files() {
	i=0
	while [ "$(ls "$tmp"/$2 2>/dev/null | wc -l)" -lt "$1" ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# alive PIDFILE...: how many of the recorded pids still run (zombies do not).
alive() {
	n=0
	for f in "$@"; do
		p=$(cat "$f")
		if [ -d "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; then
			n=$((n + 1))
		fi
	done
	echo $n
}

# One process: muster run execs the command, which keeps its pid.
$M run --for pytorch -- sh -c 'echo $$ >"$0"/self.pid; echo "$RANK $WORLD_SIZE $LOCAL_RANK" >"$0"/self.env' "$tmp" &
pid=$!
wait $pid || true
if [ "$(cat "$tmp/self.pid" 2>/dev/null)" = "$pid" ]; then
	pass "N = 1: the command runs as muster run's own process (exec)"
else
	fail "N = 1: exec" "muster run was pid $pid, the command $(cat "$tmp/self.pid" 2>/dev/null)"
fi
if [ "$(cat "$tmp/self.env")" = "2 3 0" ]; then
	pass "N = 1: the command got its RANK, WORLD_SIZE, LOCAL_RANK"
else
	fail "N = 1: environment" "got $(cat "$tmp/self.env")"
fi

# A worker that exits 3: the others (which would sleep a minute) are
# stopped, muster run exits 3, a summary names the rank, pid and status.
start=$(date +%s)
run -c "$conf" run --for pytorch --nproc-per-node 3 -- sh -c '
	echo $$ >"$0/w.$LOCAL_RANK"
	if [ "$LOCAL_RANK" = 1 ]; then
		while [ ! -f "$0/w.0" ] || [ ! -f "$0/w.2" ]; do sleep 0.05; done
		exit 3
	fi
	exec sleep 60' "$tmp"
end=$(date +%s)
expect_status 3 "a worker exits 3: muster run exits 3"
expect_err_match "^muster: run: rank 7 \(pid $(cat "$tmp/w.1")\) exited with status 3; stopping the other 2 of 3 workers" \
	"the summary names rank, pid and status"
if [ $((end - start)) -lt 8 ] && [ "$(alive "$tmp/w.0" "$tmp/w.2")" = 0 ]; then
	pass "the siblings were stopped at once ($((end - start)) s)"
else
	fail "siblings stopped" "took $((end - start)) s, alive: $(alive "$tmp/w.0" "$tmp/w.2")"
fi

# A worker killed by a signal: 128 + N.
run -c "$conf" run --for pytorch --nproc-per-node 2 -- sh -c '[ "$LOCAL_RANK" = 0 ] && kill -KILL $$; exit 0'
expect_status 137 "a worker killed by SIGKILL: exit 137"
expect_err_match "rank 4 \(pid [0-9]+\) was killed by signal 9" "... named in the summary"

# A command that is not there: 127, as a shell says.
run -c "$conf" run --for pytorch --nproc-per-node 2 -- "$tmp/no-such-program"
expect_status 127 "command not found: exit 127"

# Workers start with no signal blocked or ignored, even when muster run
# itself was started with SIGINT ignored (a background job of a script).
run -c "$conf" run --for pytorch --nproc-per-node 2 --tee-prefix -- grep -E '^Sig(Blk|Ign)' /proc/self/status
expect_status 0 "run --tee-prefix grep SigBlk/SigIgn"
if [ "$(grep -c ':	0000000000000000$' "$tmp/out")" = 4 ]; then
	pass "every worker: empty signal mask, nothing ignored"
else
	fail "clean signal state"
fi
expect_out_match '^\[4\]: SigBlk:' "--tee-prefix: lines carry [RANK]: "
expect_out_match '^\[5\]: SigIgn:' "... for each rank"

# SIGTERM and SIGINT reach every worker as themselves.
for sig in TERM INT; do
	rm -f "$tmp"/s.* "$tmp"/got.*
	(trap '' INT; exec $M run --for pytorch --nproc-per-node 2 -- sh -c '
		trap "echo INT >\"$0/got.$LOCAL_RANK\"; exit 0" INT
		trap "echo TERM >\"$0/got.$LOCAL_RANK\"; exit 0" TERM
		echo $$ >"$0/s.$LOCAL_RANK"
		while :; do sleep 0.05; done' "$tmp") >/dev/null 2>"$tmp/err" &
	pid=$!
	wait_files 2 's.*'
	kill -$sig $pid
	status=0
	wait $pid || status=$?
	if [ "$(cat "$tmp/got.0" "$tmp/got.1" 2>/dev/null | tr '\n' ' ')" = "$sig $sig " ]; then
		pass "SIG$sig to muster run reaches both workers as SIG$sig"
	else
		fail "SIG$sig forwarded" "got: $(cat "$tmp"/got.* 2>/dev/null)"
	fi
	want=143
	[ $sig = INT ] && want=130
	expect_status $want "... and muster run exits 128 + the signal's number"
done

# kill -9 of muster run: every worker ends within 2 s.
rm -f "$tmp"/k.*
$M run --for pytorch --nproc-per-node 3 -- sh -c 'echo $$ >"$0/k.$LOCAL_RANK"; exec sleep 60' "$tmp" &
pid=$!
wait_files 3 'k.*'
kill -KILL $pid
wait $pid || true
i=0
while [ "$(alive "$tmp"/k.*)" != 0 ] && [ $i -lt 20 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ "$(alive "$tmp"/k.*)" = 0 ]; then
	pass "kill -9 of muster run: no worker left (${i}00 ms)"
else
	fail "kill -9 of muster run leaves $(alive "$tmp"/k.*) workers"
	for f in "$tmp"/k.*; do kill -KILL "$(cat "$f")" 2>/dev/null || :; done
fi

run -c "$conf" run --for pytorch --nproc-per-node 2
expect_status 64 "run without a command"
run -c "$conf" run --for pytorch --gpus-per-proc 0 -- true
expect_status 64 "--gpus-per-proc 0"
finish
