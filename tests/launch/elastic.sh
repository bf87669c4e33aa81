#!/bin/sh
# muster run --elastic with real processes: two nodes of a static cluster
# start their workers; a node joins and both restart with new ranks (the old
# workers get SIGTERM and end first); a change past --max-nodes or a broken
# edit restarts nothing and a node past --max-nodes waits as a spare; below
# --min-nodes the workers stop and the node waits, and start again when a
# node comes back; SIGTERM and kill -9 of muster run leave no worker; a
# restart, SIGTERM and kill -9 leave nothing the workers started either.
# Everything is awaited, never slept for.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/launch/procs.sh"

conf=$tmp/muster.conf
# write_conf PORT...: a static worker job on 127.0.0.1 with these ports,
# replaced at once (by rename) as an orchestrator would.
write_conf() {
	list=
	for p in "$@"; do list="$list${list:+, }\"127.0.0.1:$p\""; done
	printf 'chain = ( { plugin = "static"; config = { jobs = { worker = [%s]; }; }; } );\n' \
		"$list" >"$conf.new"
	mv "$conf.new" "$conf"
}

# A worker: a line when it starts and one when SIGTERM ends it, in its
# node's log.  Its sleeps are short, so none outlives a SIGKILL for long,
# but for one it leaves running in a session of its own, out of reach of
# signals to the workers' process group.
cat >"$tmp/worker.sh" <<'EOF'
trap 'echo "TERM $$" >>"$1"; exit 0' TERM
setsid sleep 45.5 &
echo "start $$ $LOCAL_RANK $RANK $WORLD_SIZE $GROUP_RANK $GROUP_WORLD_SIZE" \
	"$TORCHELASTIC_RESTART_COUNT $MUSTER_RESTART_COUNT" >>"$1"
while :; do sleep 0.2; done
EOF

# node NAME TASK [OPTIONS...]: muster run --elastic for TASK in the
# background, its log $tmp/NAME.log, its stderr $tmp/NAME.err; its pid in
# the variable NAME, its processes job $tmp/NAME (procs.sh).
node() {
	name=$1 task=$2
	shift 2
	: >"$tmp/$name.log"
	: >"$tmp/$name.err"
	MUSTER_TEST_JOB=$tmp/$name "$MUSTER_BIN" -v -c "$conf" run --elastic --min-nodes 2 --max-nodes 3 --settle-ms 20 \
		--for pytorch --task "$task" --nproc-per-node 2 "$@" \
		-- sh "$tmp/worker.sh" "$tmp/$name.log" 2>>"$tmp/$name.err" &
	eval "$name=\$!"
}
cleanup() {
	for p in ${n0:-} ${n1:-} ${n3:-} ${s:-} ${fl:-}; do kill -TERM "$p" 2>/dev/null || :; done
	wait
	job_kill_all
}

# await WHAT SECONDS COMMAND...: COMMAND succeeds within SECONDS.
await() {
	what=$1 limit=$(($2 * 20))
	shift 2
	i=0
	while ! "$@" && [ $i -lt $limit ]; do
		sleep 0.05
		i=$((i + 1))
	done
	if "$@"; then
		pass "$what (after $((i * 50)) ms)"
	else
		fail "$what" "not within $((limit / 20)) s" \
			"$(for f in "$tmp"/*.log "$tmp"/*.err; do echo "== $f"; cat "$f"; done)"
	fi
}
count() { grep -c "^$1" "$tmp/$2.log"; }        # count start|TERM NODE
has() { [ "$(count "$1" "$2")" -ge "$3" ]; }   # has start|TERM NODE N
said() { grep -q -e "$2" "$tmp/$1.err"; }       # said NODE PATTERN
said_n() { [ "$(grep -c -e "$2" "$tmp/$1.err")" -ge "$3" ]; }
# starts NODE GENERATION: that generation's workers, "LOCAL_RANK RANK
# WORLD_SIZE GROUP_RANK GROUP_WORLD_SIZE RESTARTS MUSTER_RESTARTS" each,
# by local rank.
starts() {
	awk -v g="$2" '$1 == "start" && $NF == g { $1 = ""; $2 = ""; print substr($0, 3) }' \
		"$tmp/$1.log" | sort | tr '\n' '|'
}
# alive NODE: how many of the node's workers still run.
alive() {
	n=0
	for p in $(awk '$1 == "start" { print $2 }' "$tmp/$1.log"); do
		if [ -d "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; then
			n=$((n + 1))
		fi
	done
	echo $n
}
none_alive() { [ "$(alive "$1")" -eq 0 ]; }
# generation_left NODE GENERATION: what runs of that generation of the
# node's workers (the workers, what they started).
generation_left() {
	for p in $(job_pids "$tmp/$1"); do
		if grep -qzxF "MUSTER_RESTART_COUNT=$2" "/proc/$p/environ" 2>/dev/null; then
			job_list "$p"
		fi
	done
}

write_conf 7000 7001
node n0 worker:0
node n1 worker:1
await "both nodes start their workers" 30 eval 'has start n0 2 && has start n1 2'
check_eq "node 0: ranks 0 and 1 of 4, group rank 0, restart 0" "$(starts n0 0)" \
	"0 0 4 0 2 0 0|1 1 4 0 2 0 0|"
check_eq "node 1: ranks 2 and 3 of 4, group rank 1, restart 0" "$(starts n1 0)" \
	"0 2 4 1 2 0 0|1 3 4 1 2 0 0|"
if said n0 'notice: run: 2 nodes train, this one is node 0: starting the workers'; then
	pass "the node says it starts its workers"
else
	fail "the node says it starts its workers" "$(cat "$tmp/n0.err")"
fi

# A node joins: both nodes restart, the old workers ended before the new
# ones start, with the world and restart count of the new launch.
write_conf 7000 7001 7002
await "a node joins: both nodes restart their workers" 15 \
	eval 'has start n0 4 && has start n1 4'
check_eq "node 0: SIGTERM ended the old workers before the new ones started" \
	"$(awk '{ printf "%s ", $1 }' "$tmp/n0.log")" "start start TERM TERM start start "
check_eq "node 1: ... likewise" \
	"$(awk '{ printf "%s ", $1 }' "$tmp/n1.log")" "start start TERM TERM start start "
check_eq "node 0 after the join: ranks 0, 1 of 6, restart count 1" "$(starts n0 1)" \
	"0 0 6 0 3 1 1|1 1 6 0 3 1 1|"
check_eq "node 1 after the join: ranks 2, 3 of 6, restart count 1" "$(starts n1 1)" \
	"0 2 6 1 3 1 1|1 3 6 1 3 1 1|"
check_eq "nothing of the first generation is left on either node, what the workers started in a session of its own included" \
	"$(generation_left n0 0)$(generation_left n1 0)" ""

# A fourth node is past --max-nodes 3: the others' launch is the same, so
# nothing restarts, and that node waits as a spare.
write_conf 7000 7001 7002 7003
node n3 worker:3
await "a change past --max-nodes reaches both nodes" 15 \
	eval "said n0 \"this node's launch did not\" && said n1 \"this node's launch did not\""
check_eq "... and restarts nothing" "$(count start n0) $(count start n1) $(alive n0) $(alive n1)" \
	"4 4 2 2"
await "the node past --max-nodes says it waits as a spare" 30 \
	said n3 'this node is node 3 of 4, past --max-nodes 3: waiting as a spare'
check_eq "... and starts no worker" "$(count start n3)" 0

# A broken edit keeps the last good cluster; the next good edit that does
# not touch the launch restarts nothing either.
echo 'chain = ( { plugin = "static"' >"$conf"
await "a broken edit is reported" 15 said n0 'syntax error'
write_conf 7000 7001 7002 7004
await "the repaired config is followed" 15 said_n n0 "this node's launch did not" 2
check_eq "... and nothing restarted, nothing ended" \
	"$(count start n0) $(count start n1) $(alive n0) $(alive n1)" "4 4 2 2"
if kill -0 "$n0" 2>/dev/null && kill -0 "$n1" 2>/dev/null; then
	pass "the broken edit ended no node"
else
	fail "the broken edit ended no node"
fi

# Below --min-nodes: node 0's workers stop and it waits; node 1's own task
# left the cluster: it waits as a spare.
write_conf 7000
await "below --min-nodes the workers stop" 15 \
	eval 'none_alive n0 && none_alive n1 && has TERM n0 4 && has TERM n1 4'
await "node 0 says it waits, and for how many" 15 \
	said n0 'notice: run: 1 training node, fewer than --min-nodes 2: waiting for 1 more'
await "node 1, its task gone, says it waits as a spare" 15 \
	said n1 "waiting as a spare: No task with index 1 in job 'worker'"

# A node comes back: both start again, restart count 2.
write_conf 7000 7001
await "a node comes back: both nodes start again" 15 eval 'has start n0 6 && has start n1 6'
check_eq "node 0: ranks 0, 1 of 4, restart count 2" "$(starts n0 2)" "0 0 4 0 2 2 2|1 1 4 0 2 2 2|"
check_eq "node 1: ranks 2, 3 of 4, restart count 2" "$(starts n1 2)" "0 2 4 1 2 2 2|1 3 4 1 2 2 2|"

# term PID: SIGTERM to a muster run, its exit status in $rc once it ended.
term() {
	kill -TERM "$1"
	rc=0
	wait "$1" || rc=$?
}

# SIGTERM ends a node promptly, its workers gone; so does it a spare.
term "$n0"
n0=
check_eq "SIGTERM ends muster run --elastic with 128 + 15" "$rc" 143
check_eq "... its workers got SIGTERM and are gone" "$(count TERM n0) $(alive n0)" "6 0"
job_gone "... SIGTERM of muster run --elastic" "$tmp/n0"
term "$n3"
n3=
check_eq "SIGTERM ends a waiting node with 128 + 15" "$rc" 143

# kill -9 of muster run: its keeper ends its workers and what they started.
kill -KILL "$n1"
wait "$n1" 2>/dev/null
n1=
await "kill -9 of muster run --elastic: no worker left" 2 none_alive n1
job_gone "... kill -9 of muster run --elastic" "$tmp/n1"

# A worker that ignores SIGTERM gets SIGKILL after the grace (10 s), and
# only then does the next generation start.
cat >"$tmp/stubborn.sh" <<'EOF'
trap '' TERM
echo "start $$ $MUSTER_RESTART_COUNT" >>"$1"
while :; do sleep 0.2; done
EOF
write_conf 7000
: >"$tmp/s.log"
"$MUSTER_BIN" -c "$conf" run --elastic --settle-ms 20 --for pytorch --task worker:0 \
	-- sh "$tmp/stubborn.sh" "$tmp/s.log" 2>"$tmp/s.err" &
s=$!
await "a worker that ignores SIGTERM starts" 30 has start s 1
old=$(awk 'NR == 1 { print $2 }' "$tmp/s.log")
t0=$(date +%s)
write_conf 7000 7001
await "... the next generation starts once SIGKILL ended it" 40 has start s 2
t1=$(date +%s)
if [ $((t1 - t0)) -ge 9 ] && [ ! -d "/proc/$old" ]; then
	pass "... after the 10 s grace ($((t1 - t0)) s), the old worker gone"
else
	fail "SIGKILL after the grace" "$((t1 - t0)) s" "$(cat "$tmp/s.log")"
fi
kill -KILL "$s"
wait "$s" 2>/dev/null
s=

# A worker's failure and a change of the launch in one poll: the failure
# ends the run (it was lost, or the node hung waiting).  muster run is held
# writing its full stdout (rank 0 floods it through --tee-prefix) while
# rank 1 exits 3 and the node falls below --min-nodes; then it is let go.
cat >"$tmp/fails.sh" <<'EOF'
echo "start $$ $LOCAL_RANK" >>"$1"
if [ "$LOCAL_RANK" = 0 ]; then
	while [ ! -e "$1.flood" ]; do sleep 0.05; done
	seq 200000
else
	while [ ! -e "$1.fail" ]; do sleep 0.05; done
	exit 3
fi
while :; do sleep 0.2; done
EOF
# held PID: its main thread waits to write to a full pipe.
held() { case $(cat "/proc/$1/wchan" 2>/dev/null) in *pipe_write) true ;; *) false ;; esac; }
# zombie PID: it ended and is not reaped yet.
zombie() { grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
# change_waits PID: the watch has a change ready that muster run has not read.
change_waits() {
	for fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$fd")" = "anon_inode:[eventfd]" ] &&
			grep -Eq '^eventfd-count:[[:space:]]*0*[1-9a-f]' "/proc/$1/fdinfo/${fd##*/}" &&
			return 0
	done
	return 1
}
# ended PID: it exited (gone, or a zombie not yet reaped).
ended() { [ ! -d "/proc/$1" ] || zombie "$1"; }
# Whether wchan names where a process sleeps: asked of a process that surely
# sleeps (this shell may be running when it asks of itself, and read "0").
sleep 5 &
sleeper=$!
sleep 0.2
sleeping_in=$(cat "/proc/$sleeper/wchan" 2>/dev/null)
kill "$sleeper" 2>/dev/null
wait "$sleeper" 2>/dev/null
case $sleeping_in in
''|0) skip "a failure and a change in one poll" "/proc/PID/wchan is not readable here" ;;
*)
	write_conf 7000 7001
	: >"$tmp/f.log"
	mkfifo "$tmp/f.out"
	"$MUSTER_BIN" -c "$conf" run --elastic --min-nodes 2 --settle-ms 20 --for pytorch \
		--task worker:0 --nproc-per-node 2 --tee-prefix -- sh "$tmp/fails.sh" "$tmp/f.log" \
		>"$tmp/f.out" 2>"$tmp/f.err" &
	fl=$!
	exec 3<"$tmp/f.out"
	await "a failure and a change in one poll: the workers start" 30 has start f 2
	touch "$tmp/f.log.flood"
	await "... muster run is held writing its full stdout" 15 held "$fl"
	touch "$tmp/f.log.fail"
	write_conf 7000
	failed=$(awk '$1 == "start" && $3 == 1 { print $2 }' "$tmp/f.log")
	await "... rank 1's exit (told by the keeper) and the change both wait for it" 15 \
		eval 'ended "$failed" && change_waits "$fl"'
	cat <&3 >/dev/null &
	exec 3<&-
	await "... let go, it ends" 15 ended "$fl"
	ended "$fl" || kill -KILL "$fl"
	rc=0
	wait "$fl" || rc=$?
	fl=
	check_eq "... with the failure's status" "$rc" 3
	;;
esac

for f in "$tmp"/*.err; do
	if grep -E -q 'runtime error:|AddressSanitizer|LeakSanitizer' "$f"; then
		fail "no sanitizer report in $(basename "$f")" "$(cat "$f")"
	fi
done

# Workers that all exit 0 end the run with 0; a failure ends it with its
# status, as without --elastic.
write_conf 7000
run -c "$conf" run --elastic --settle-ms 0 --for pytorch --nproc-per-node 2 --task worker:0 -- true
expect_status 0 "workers that all exit 0 end muster run --elastic"
run -c "$conf" run --elastic --settle-ms 0 --for pytorch --task worker:0 -- sh -c 'exit 3'
expect_status 3 "a worker that exits 3 ends it with 3"

# jax: the world trimmed to --max-nodes too; no torchrun variable.
write_conf 7000 7001
run -c "$conf" run --elastic --settle-ms 0 --max-nodes 1 --for jax --task worker:0 -- \
	sh -c 'echo "$JAX_NUM_PROCESSES $JAX_PROCESS_ID $MUSTER_RESTART_COUNT ${TORCHELASTIC_RESTART_COUNT-unset}"'
expect_status 0 "--for jax --max-nodes 1 over two tasks"
check_eq "... JAX_NUM_PROCESSES counts the one node that trains" "$(cat "$tmp/out")" "1 0 0 unset"

run -c "$conf" run --min-nodes 2 --for pytorch -- true
expect_status 64 "--min-nodes without --elastic"
run -c "$conf" run --elastic --min-nodes 3 --max-nodes 2 --for pytorch -- true
expect_status 64 "--max-nodes below --min-nodes"
run -c "$conf" run --elastic --for tensorflow -- true
expect_status 64 "--elastic --for tensorflow"
finish
