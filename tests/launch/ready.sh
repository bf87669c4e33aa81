#!/bin/sh
# muster run's readiness: a node other than the master's waits, within
# --master-timeout, until the master's name resolves and, with
# --wait-master, until its port accepts a connection; one progress line;
# the timeout exits 3 naming host, port and the last error; name lookups
# are bounded too (a resolver that never answers); the master's node and
# --master-timeout 0 never wait.  As root the lookups run in a mount
# namespace whose /etc/hosts and /etc/nsswitch.conf the test owns.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
require_tools python3

# conf NAME MASTER: a static cluster of two nodes, MASTER:29500 first (the
# master), this process the second.
conf() {
	cat >"$tmp/$1.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { worker = ["$2", "127.0.0.1:29501"]; };
  task = { type = "worker"; index = 1; }; }; } );
CONF
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# timed COMMAND...: runs COMMAND with stdout and stderr in $tmp/out and
# $tmp/err; $status and $ms, the time it took.
timed() {
	t0=$(now_ms)
	status=0
	"$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	ms=$(($(now_ms) - t0))
	no_sanitizer_report "$*"
}

# within LOW HIGH WHAT: the last run took LOW to HIGH ms.
within() {
	if [ "$ms" -ge "$1" ] && [ "$ms" -le "$2" ]; then
		pass "$3 ($ms ms)"
	else
		fail "$3" "took $ms ms, want $1 to $2"
	fi
}

# one_progress_line WHAT: exactly one "waiting" line, whatever the retries.
one_progress_line() {
	check_eq "$1: one progress line" "$(grep -c 'waiting up to' "$tmp/err")" 1
}

# --- a name that never resolves ------------------------------------------
conf never nonesuch.invalid:29500
timed "$MUSTER_BIN" -c "$tmp/never.conf" run --for pytorch --master-timeout 1 -- echo started
expect_status 3 "a master name under .invalid, --master-timeout 1"
within 900 4000 "... gives up after about 1 s"
expect_err_match "^muster: run: the master nonesuch\.invalid:29500 was not ready within 1 s \(--master-timeout\): (no such name|the name lookup did not finish)" \
	"... naming host, port and the last error"
one_progress_line "a name that never resolves"
check_eq "... no worker started" "$(cat "$tmp/out")" ""
timed "$MUSTER_BIN" -q -c "$tmp/never.conf" run --for jax --master-timeout 1 -- true
expect_status 3 "--for jax: the same wait for the coordinator"
check_eq "-q: no progress line, the error only" "$(grep -c . "$tmp/err")" 1

# --- who does not wait ----------------------------------------------------
timed "$MUSTER_BIN" -c "$tmp/never.conf" run --for pytorch --master-timeout 0 -- echo started
expect_status 0 "--master-timeout 0"
expect_out "started" "... starts the workers at once"
expect_empty_err "... without a word"
within 0 3000 "... without waiting"
timed "$MUSTER_BIN" -c "$tmp/never.conf" run --for pytorch --task worker:0 --master-timeout 5 \
	-- echo started
expect_status 0 "the master's own node"
expect_out "started" "... never waits, even for a name that does not resolve"
expect_empty_err "... and says nothing"
within 0 3000 "... at once"
timed "$MUSTER_BIN" -c "$tmp/never.conf" run --for tensorflow -- echo started
expect_status 0 "--for tensorflow: no master to wait for"
expect_out "started" "... the workers start at once"
run -c "$tmp/never.conf" run --for tensorflow --master-timeout 1 -- true
expect_status 64 "--for tensorflow --master-timeout"
expect_err_match "^muster: run: --master-timeout and --wait-master: --for pytorch or jax" \
	"... says that it goes with pytorch and jax"
conf local 127.0.0.1:29500
timed "$MUSTER_BIN" -c "$tmp/local.conf" run --for pytorch -- echo started
expect_status 0 "a master that resolves at once, default timeout"
expect_empty_err "... no progress line"

# --- --wait-master ----------------------------------------------------------
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
conf port "127.0.0.1:$port"
timed "$MUSTER_BIN" -c "$tmp/port.conf" run --for pytorch --wait-master --master-timeout 1 -- echo started
expect_status 3 "--wait-master, nothing listening"
expect_err_match "^muster: run: the master 127\.0\.0\.1:$port was not ready within 1 s \(--master-timeout\): connection refused$" \
	"... the error says refused"
one_progress_line "--wait-master, refused"
timed "$MUSTER_BIN" -c "$tmp/port.conf" run --for pytorch -- echo started
expect_status 0 "without --wait-master a closed port does not hold the workers"
python3 -c 'import socket, sys, time
time.sleep(1)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(8)
time.sleep(20)' "$port" &
listener=$!
cleanup() { kill "$listener" 2>/dev/null || :; }
timed "$MUSTER_BIN" -c "$tmp/port.conf" run --for pytorch --wait-master --master-timeout 20 \
	-- sh -c 'echo started $MASTER_PORT'
expect_status 0 "--wait-master, a port that starts listening after 1 s"
expect_out "started $port" "... the workers start then"
within 900 6000 "... once it listens"
one_progress_line "--wait-master, late listener"
kill "$listener" 2>/dev/null || :

# --- usage ------------------------------------------------------------------
run -c "$tmp/port.conf" run --for pytorch --master-timeout 0 --wait-master -- true
expect_status 64 "--wait-master with --master-timeout 0"
run -c "$tmp/port.conf" run --for pytorch --master-timeout 86401 -- true
expect_status 64 "--master-timeout past a day"
expect_err_match "^muster: run: --master-timeout wants 0 to 86400, not '86401'$" "... named"
run -c "$tmp/port.conf" run --for pytorch --elastic --master-timeout 5 -- true
expect_status 64 "--master-timeout with --elastic"

# --- the resolver, in namespaces of the test's own (root) -------------------
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	skip "a resolver that never answers" "needs root and mount namespaces"
	skip "a name that resolves midway" "needs root and mount namespaces"
	finish
fi

# in_ns: mounts $tmp/hosts, $tmp/nsswitch.conf and $tmp/resolv.conf over
# /etc's, then runs its arguments (in `unshare -m`).
cat >"$tmp/in_ns.sh" <<'SH'
set -e
for f in hosts nsswitch.conf resolv.conf; do
	if [ -f "$T/$f" ]; then mount --bind "$T/$f" "/etc/$f"; fi
done
exec "$@"
SH

# A master whose name turns up in /etc/hosts a second after muster run starts.
conf named master.muster-test:29500
cp /etc/hosts "$tmp/hosts"
echo "hosts: files" >"$tmp/nsswitch.conf"
(sleep 1; echo "127.0.0.1 master.muster-test" >>"$tmp/hosts") &
T=$tmp timed unshare -m sh "$tmp/in_ns.sh" "$MUSTER_BIN" -c "$tmp/named.conf" run --for pytorch \
	--master-timeout 20 -- sh -c 'echo started $MASTER_ADDR'
wait
expect_status 0 "a master name that resolves after 1 s"
expect_out "started master.muster-test" "... the workers start then"
within 900 6000 "... once it resolves"
one_progress_line "a name that resolves midway"
expect_err_match "for the master master\.muster-test:29500 to resolve: no such name$" \
	"... which says why the node waits"

# A name server that takes the question and never answers (a UDP socket
# nobody reads, in a network namespace): glibc would wait 5 s x 3 tries.
if ! command -v ip >/dev/null 2>&1 || ! unshare -m -n true 2>/dev/null; then
	skip "a resolver that never answers" "needs ip(8) and network namespaces"
	finish
fi
rm "$tmp/hosts"
echo "hosts: dns" >"$tmp/nsswitch.conf"
printf 'nameserver 127.0.0.1\noptions timeout:5 attempts:3\n' >"$tmp/resolv.conf"
cat >"$tmp/blackhole.sh" <<'SH'
ip link set lo up
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
open(sys.argv[1], "w").close()
time.sleep(60)' "$T/bound" &
i=0
while [ ! -f "$T/bound" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
rc=0
"$@" || rc=$?
kill $!
exit $rc
SH
T=$tmp timed unshare -m -n sh "$tmp/in_ns.sh" sh "$tmp/blackhole.sh" "$MUSTER_BIN" \
	-c "$tmp/named.conf" run --for pytorch --master-timeout 2 -- echo started
expect_status 3 "a resolver that never answers, --master-timeout 2"
within 1900 6000 "... still gives up in time (glibc alone: 15 s)"
expect_err_match "^muster: run: the master master\.muster-test:29500 was not ready within 2 s \(--master-timeout\): the name lookup did not finish \(the resolver did not answer\)$" \
	"... saying that the lookup did not finish"
one_progress_line "a silent resolver"
finish
