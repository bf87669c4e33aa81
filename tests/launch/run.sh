#!/bin/sh
# muster run with real processes: one process is exec'd; a failure stops
# the siblings (SIGKILL after the grace for one that ignores SIGTERM) and
# becomes the exit status; signals are forwarded as they came; kill -9 of
# muster run leaves no worker; workers start clean; nothing the workers
# started outlives muster run, however it ended.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/launch/procs.sh"
cleanup() { job_kill_all; }
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

# dirty ARGS...: as run, but muster run starts as a careless parent may
# leave it: SIGINT, SIGQUIT and SIGPIPE ignored (a script's background job
# ignores the first two), SIGUSR1 and SIGUSR2 blocked.  In the background,
# so that $pid is muster run's.
dirty() {
	status=0
	python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGPIPE):
    signal.signal(s, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1, signal.SIGUSR2})
os.execv(sys.argv[1], sys.argv[1:])' "$MUSTER_BIN" "$@" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	wait $pid || status=$?
	no_sanitizer_report "muster $*"
}

# clean WHAT N: the last run's output holds N SigBlk/SigIgn lines, all 0.
clean() {
	if [ "$(grep -c 'Sig\(Blk\|Ign\):	0000000000000000$' "$tmp/out")" = "$2" ]; then
		pass "$1: empty signal mask, nothing ignored"
	else
		fail "$1: clean signal state" "$(cat "$tmp/out")"
	fi
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
dirty -c "$conf" run --for pytorch -- grep -E '^(Pid|SigBlk|SigIgn):' /proc/self/status
expect_status 0 "N = 1, started with signals ignored and blocked"
expect_out_match "^Pid:	$pid\$" "... the command is still muster run's process"
clean "N = 1" 2

# ms_since FILE: milliseconds from the `date +%s%N` in FILE to now.
ms_since() {
	echo $((($(date +%s%N) - $(cat "$1")) / 1000000))
}

# A worker that exits 3: the others (which would sleep a minute) are
# stopped, muster run exits 3, a summary names the rank, pid and status.
run -c "$conf" run --for pytorch --nproc-per-node 3 -- sh -c '
	echo $$ >"$0/w.$LOCAL_RANK"
	if [ "$LOCAL_RANK" = 1 ]; then
		while [ ! -f "$0/w.0" ] || [ ! -f "$0/w.2" ]; do sleep 0.05; done
		date +%s%N >"$0/failed"
		exit 3
	fi
	exec sleep 60' "$tmp"
ms=$(ms_since "$tmp/failed")
expect_status 3 "a worker exits 3: muster run exits 3"
expect_err_match "^muster: run: rank 7 \(pid $(cat "$tmp/w.1")\) exited with status 3; stopping the other 2 of 3 workers" \
	"the summary names rank, pid and status"
if [ "$ms" -lt 5000 ] && [ "$(alive "$tmp/w.0" "$tmp/w.2")" = 0 ]; then
	pass "siblings that obey SIGTERM are stopped and muster run ends within 5 s ($ms ms)"
else
	fail "siblings stopped" "took $ms ms, alive: $(alive "$tmp/w.0" "$tmp/w.2")"
fi

# A sibling that ignores SIGTERM gets SIGKILL after the 10 s grace, and so
# do the children it started, which ignore SIGTERM too (one of them in a
# session of its own).
rm -f "$tmp"/w.* "$tmp/failed"
status=0
MUSTER_TEST_JOB=$tmp/stubborn timeout 60 "$MUSTER_BIN" -c "$conf" run --for pytorch \
	--nproc-per-node 2 -- sh -c '
	if [ "$LOCAL_RANK" = 1 ]; then
		while [ ! -f "$0/w.0" ]; do sleep 0.05; done
		date +%s%N >"$0/failed"
		exit 3
	fi
	trap "" TERM
	setsid sleep 45.5 & sleep 45.5 &
	echo $$ >"$0/w.0"
	while :; do sleep 0.05; done' "$tmp" >"$tmp/out" 2>"$tmp/err" || status=$?
no_sanitizer_report "muster run with a worker that ignores SIGTERM"
ms=$(ms_since "$tmp/failed")
expect_status 3 "a sibling ignores SIGTERM: muster run still exits 3"
if [ "$ms" -ge 10000 ] && [ "$ms" -lt 14000 ] && [ "$(alive "$tmp/w.0")" = 0 ]; then
	pass "... once SIGKILL ended it, after the grace ($ms ms)"
else
	fail "SIGKILL after the grace" "took $ms ms, alive: $(alive "$tmp/w.0")"
fi
job_gone "... with its children that ignore SIGTERM too" "$tmp/stubborn"

# A worker killed by a signal: 128 + N.
run -c "$conf" run --for pytorch --nproc-per-node 2 -- sh -c '[ "$LOCAL_RANK" = 0 ] && kill -KILL $$; exit 0'
expect_status 137 "a worker killed by SIGKILL: exit 137"
expect_err_match "rank 4 \(pid [0-9]+\) was killed by signal 9" "... named in the summary"

# A command that is not there: 127, as a shell says.
run -c "$conf" run --for pytorch --nproc-per-node 2 -- "$tmp/no-such-program"
expect_status 127 "command not found: exit 127"

# Workers start with no signal blocked or ignored, whatever muster run
# started with.
dirty -c "$conf" run --for pytorch --nproc-per-node 2 --tee-prefix -- grep -E '^Sig(Blk|Ign)' /proc/self/status
expect_status 0 "run --tee-prefix grep SigBlk/SigIgn, started with signals ignored and blocked"
clean "every worker" 4
expect_out_match '^\[4\]: SigBlk:' "--tee-prefix: lines carry [RANK]: "
expect_out_match '^\[5\]: SigIgn:' "... for each rank"

# Under nohup the command must outlive a hang-up: an ignored SIGHUP stays.
for n in 1 2; do
	(trap '' HUP; exec "$MUSTER_BIN" -c "$conf" run --for pytorch --nproc-per-node $n -- \
		grep SigIgn /proc/self/status) >"$tmp/out" 2>"$tmp/err"
	no_sanitizer_report "muster run under nohup"
	if [ "$(sort -u "$tmp/out")" = "SigIgn:	0000000000000001" ]; then
		pass "N = $n under nohup: SIGHUP stays ignored, nothing else is"
	else
		fail "N = $n under nohup" "$(cat "$tmp/out" "$tmp/err")"
	fi
done

# SIGTERM, SIGINT and SIGHUP reach every worker as themselves.
for sig in TERM INT HUP; do
	rm -f "$tmp"/s.* "$tmp"/got.*
	(trap '' INT; exec $M run --for pytorch --nproc-per-node 2 -- sh -c '
		for s in INT TERM HUP; do trap "echo $s >\"$0/got.$LOCAL_RANK\"; exit 0" $s; done
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
	case $sig in TERM) want=143 ;; INT) want=130 ;; HUP) want=129 ;; esac
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

# Nothing the workers start outlives muster run, whether it stayed in
# their process group or left it (setsid): each worker below starts one
# `sleep 45.5` of each kind.  $1 is the test's directory.
both='setsid sleep 45.5 & sleep 45.5 &'

# job_start NAME WORKER: muster run --nproc-per-node 2 -- sh -c WORKER in
# the background as job $tmp/NAME, its pid in $pid, once its four sleeps
# run.
job_start() {
	MUSTER_TEST_JOB=$tmp/$1 $M run --for pytorch --nproc-per-node 2 -- sh -c "$2" "$tmp" \
		>"$tmp/out" 2>"$tmp/err" &
	pid=$!
	job_await 4 "$tmp/$1" "sleep 45.5"
}
# job_end: muster run's exit status in $status.
job_end() {
	status=0
	wait "$pid" || status=$?
	no_sanitizer_report "muster run"
}

# SIGTERM to muster run: a stop, passed on, that no line calls a failure.
job_start term "$both wait"
kill -TERM "$pid"
job_end
expect_status 143 "SIGTERM to muster run while its workers' children run: exit 143"
job_gone "... SIGTERM" "$tmp/term"
expect_err_match '^muster: notice: run: stopped by SIGTERM: passing it on to the 2 running workers' \
	"... it says that SIGTERM stopped it and that it passed it on"
expect_err_nomatch 'rank|fail|killed by signal' "... and speaks of no failure"

# A failure stops the others: rank 1 exits 3 once the sleeps run.
job_start fail "$both"'
	if [ "$LOCAL_RANK" = 1 ]; then
		while [ ! -e "$0/fail" ]; do sleep 0.05; done
		exit 3
	fi
	wait'
touch "$tmp/fail"
job_end
expect_status 3 "rank 1 exits 3 while the workers' children run: exit 3"
job_gone "... a failure" "$tmp/fail"

# Workers that exit 0 having started something: what they started ends.
status=0
MUSTER_TEST_JOB=$tmp/exit0 $M run --for pytorch --nproc-per-node 2 -- sh -c "$both exit 0" \
	>"$tmp/out" 2>"$tmp/err" || status=$?
no_sanitizer_report "muster run"
expect_status 0 "workers that exit 0 having started children: exit 0"
job_gone "... workers that exit 0" "$tmp/exit0"

# SIGKILL of muster run itself, and of its whole process group (a
# shell's kill -9 %1; setsid makes muster run lead one of its own).
job_start kill "$both wait"
kill -KILL "$pid"
job_end
job_gone "SIGKILL of muster run" "$tmp/kill"
MUSTER_TEST_JOB=$tmp/killpg setsid $M run --for pytorch --nproc-per-node 2 -- sh -c "$both wait" \
	"$tmp" >"$tmp/out" 2>"$tmp/err" &
pid=$!
job_await 4 "$tmp/killpg" "sleep 45.5"
kill -KILL "-$pid"
job_end
job_gone "SIGKILL of muster run's process group" "$tmp/killpg"

# The keeper killed: the workers die with it, and muster run, a subreaper
# too, kills what they started and exits 137, saying what happened.
job_start keeper "$both wait"
keeper=
for p in $(job_pids "$tmp/keeper"); do
	if [ "$(cut -d' ' -f4 "/proc/$p/stat" 2>/dev/null)" = "$pid" ]; then keeper=$p; fi
done
[ -z "$keeper" ] || kill -KILL "$keeper"
job_end
expect_status 137 "SIGKILL of the workers' keeper: muster run exits 137"
expect_err_match "^muster: run: the workers' keeper \(pid $keeper\) was killed by signal 9" \
	"... and says that the keeper was killed"
job_gone "... SIGKILL of the keeper" "$tmp/keeper"

# Under nohup a hang-up is ignored: muster run neither takes it for its
# stop (nor SIGKILLs the workers 10 s later); the SIGTERM after it is.
(trap '' HUP; MUSTER_TEST_JOB=$tmp/nohup exec $M run --for pytorch --nproc-per-node 2 -- \
	sh -c "trap 'exit 0' TERM; $both wait") >"$tmp/out" 2>"$tmp/err" &
pid=$!
job_await 4 "$tmp/nohup" "sleep 45.5"
kill -HUP "$pid"
kill -TERM "$pid"
job_end
expect_status 143 "under nohup, SIGHUP then SIGTERM: the stop is SIGTERM's (143), not SIGHUP's"
job_gone "... under nohup" "$tmp/nohup"

run -c "$conf" run --for pytorch --nproc-per-node 2
expect_status 64 "run without a command"
run -c "$conf" run --for pytorch --gpus-per-proc 0 -- true
expect_status 64 "--gpus-per-proc 0"
finish
