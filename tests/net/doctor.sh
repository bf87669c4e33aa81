#!/bin/sh
# muster doctor on real network stacks (namespaces and veth pairs): the
# interface whose route reaches the master, not the default route's; the
# master's name resolving to 127.0.1.1 on its own node; an unreachable
# peer, a peer with no route, a proxy without no_proxy, a port already
# taken on the master (and by what), a resolver that never answers
# (bounded by --timeout); the table and JSON forms and the exit status.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/net/lib.sh"
net_setup
EX_PROBLEM=6
unset http_proxy https_proxy grpc_proxy HTTP_PROXY HTTPS_PROXY GRPC_PROXY no_proxy NO_PROXY \
	no_grpc_proxy GLOO_SOCKET_IFNAME

row() { # row STATUS CHECK SUBJECT: the table's line for it, from $tmp/out
	awk -v s="$1" -v c="$2" -v j="$3" '$1 == s && $2 == c && $3 == j' "$tmp/out"
}
expect_row() { # expect_row STATUS CHECK SUBJECT DETAIL-REGEX WHAT
	line=$(row "$1" "$2" "$3")
	if [ -n "$line" ] && printf '%s\n' "$line" | grep -E -q -e "$4"; then
		pass "$5"
	else
		fail "$5" "want a row: $1 $2 $3 ... /$4/"
	fi
}

# The worker: its route to the master leaves by wa, its default by wb.
muster_in W worker "$tmp/hosts.W" -- -c "$tmp/cluster.conf" doctor --task worker:0
expect_status 0 "worker: no problem"
expect_row ok interface wa 'routes master \(10\.77\.9\.1\) through wa, from 10\.77\.1\.2' \
	"worker: the interface is wa, the master's route, not the default route's wb"
expect_row ok name master 'resolves to 10\.77\.9\.1' "worker: the master's name resolves"
expect_row ok reach master '10\.77\.9\.1 answers via wa \(port 29500 refused' \
	"worker: the master answers; nothing listens yet, which is fine"
expect_row ok duplicates nodes "this node's host is this machine" "worker: its host is itself"

# The master: its own name is 127.0.1.1 here; the worker is reached by mv.
muster_in M master "$tmp/hosts.M" -- -c "$tmp/cluster.conf" doctor --task master:0
expect_status 0 "master: no problem"
expect_row ok interface mv 'routes worker \(10\.77\.1\.2\) through mv, from 10\.77\.1\.1' \
	"master: the interface is mv"
expect_row note name master 'resolves here to 127\.0\.1\.1, a loopback address; MASTER_ADDR becomes' \
	"master: its name's loopback answer is a note: MASTER_ADDR is replaced"
expect_row ok port 'port' 'free on this node' "master: the master port is free"

# A peer that does not answer (nobody has 10.77.1.99: no ARP reply) and
# one with no route from the master (no default route there).
cat >"$tmp/ghosts.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { master = ["master:$port"]; worker = ["worker:$port", "10.77.1.99:$port",
    "192.0.2.1:$port", "nosuchpeer:$port"]; }; }; } );
CONF
printf 'hosts: files\n' >"$tmp/nsswitch.conf"
start=$(date +%s%N)
muster_in M master "$tmp/hosts.M" "$tmp/nsswitch.conf=/etc/nsswitch.conf" -- \
	-c "$tmp/ghosts.conf" doctor --task master:0 --timeout 1
elapsed=$((($(date +%s%N) - start) / 1000000))
expect_status $EX_PROBLEM "master: problems found"
expect_row problem reach 10.77.1.99 'no answer within 1000 ms' "a peer that does not answer is named"
expect_row problem reach 192.0.2.1 'no route to 192\.0\.2\.1 from here: Network is unreachable' \
	"a peer without a route is named"
expect_row problem name nosuchpeer 'does not resolve here: no such name' \
	"a name that does not resolve is named"
expect_row problem interface - 'none chosen' "no interface is chosen then"
grep -q 'fix: ' "$tmp/out" && pass "problems say how to fix them" || fail "problems say how to fix them"
check "--timeout 1 bounds the checks ($elapsed ms)" test "$elapsed" -lt 2000

# A port already taken on the master, by a process the report names.
ns_bg M python3 -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', $port)); s.listen(); time.sleep(60)"
holder=$ns_pid
wait_port M $port
muster_in M master "$tmp/hosts.M" -- -c "$tmp/cluster.conf" doctor --task master:0
expect_status $EX_PROBLEM "master: the taken port is a problem"
expect_row problem port port "in use by process [0-9]+ \\(python3, uid 0\\)" \
	"the port's holder is named"
expect_row ok reach worker '' "the worker is still reached"
# muster run --doctor stops on it, before the command.
muster_in M master "$tmp/hosts.M" -- -c "$tmp/cluster.conf" run --for pytorch --task master:0 \
	--doctor -- touch "$tmp/ran"
expect_status $EX_PROBLEM "run --doctor: stops on the taken port"
expect_err_match "^problem +port +port $port +in use by process" "run --doctor: the report is on stderr"
check "run --doctor: the command did not run" test ! -e "$tmp/ran"
kill "$holder"
muster_in M master "$tmp/hosts.M" -- -c "$tmp/cluster.conf" run --for pytorch --task master:0 \
	--doctor -- touch "$tmp/ran"
expect_status 0 "run --doctor: no problem"
check "run --doctor: the command ran" test -e "$tmp/ran"
expect_empty_err "run --doctor: nothing said without a problem"

# 300 peers (addresses of a namespace P linked to the master's by mp),
# with 64 descriptors: every one is reached (connections are made a few
# at a time), none fails for want of a descriptor.
ns_add P
ns_link P pv 10.88.200.1/16 M mp 10.88.255.1/16
i=1
while [ $i -le 300 ]; do
	echo "addr add 10.88.$((i / 256)).$((i % 256))/16 dev pv"
	i=$((i + 1))
done >"$tmp/addrs"
ip -n "${ns_prefix}P" -batch "$tmp/addrs" || bail_out "300 addresses"
peers=$(sed 's|^addr add \(.*\)/16 dev pv$|"\1:'"$port"'"|' "$tmp/addrs" | paste -s -d, -)
cat >"$tmp/many.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { master = ["master:$port"]; worker = [$peers]; }; }; } );
CONF
status=0
ip netns exec "${ns_prefix}M" unshare -m -u sh -c 'mount --bind "$1" /etc/hosts && hostname master &&
	ulimit -n 64 && exec "$2" -c "$3" doctor --task master:0' sh "$tmp/hosts.M" "$MUSTER_BIN" \
	"$tmp/many.conf" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 0 "300 peers under ulimit -n 64: no problem"
check_eq "... each of the 300 answered (refused: nothing listens)" \
	"$(grep -c '^ok  *reach  *10\.88\.[0-9.]*  *10\.88\.[0-9.]* answers via mp' "$tmp/out")" 300

# A proxy without no_proxy for the peers; its value (a password) unsaid.
http_proxy=http://user:s3cret@proxy.invalid:3128 \
	muster_in W worker "$tmp/hosts.W" -- -c "$tmp/cluster.conf" doctor --task worker:0
expect_status $EX_PROBLEM "worker: http_proxy without no_proxy is a problem"
expect_row problem proxy http_proxy 'no_proxy \(unset\) does not cover 2 peers \(master,worker\)' \
	"the proxy variable and the peers it would carry are named"
if grep -q s3cret "$tmp/out" "$tmp/err"; then fail "the proxy's password is not shown"; else
	pass "the proxy's password is not shown"; fi
http_proxy=http://proxy.invalid:3128 no_proxy=localhost,.example,master,worker \
	muster_in W worker "$tmp/hosts.W" -- -c "$tmp/cluster.conf" doctor --task worker:0
expect_status 0 "worker: no_proxy covering the peers is no problem"
expect_row ok proxy http_proxy 'no_proxy covers every peer' "... and says so"

# JSON: one object, the same checks.
muster_in W worker "$tmp/hosts.W" -- -c "$tmp/cluster.conf" doctor --task worker:0 --format json
expect_status 0 "worker: --format json"
if /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is True, d
rows = {(c["check"], c["subject"]): c for c in d["checks"]}
assert rows[("interface", "wa")]["status"] == "ok", rows
assert all(set(c) >= {"check", "status", "subject", "detail"} for c in d["checks"])
' "$tmp/out" 2>"$tmp/pyerr"; then pass "the JSON report holds the checks"; else
	fail "the JSON report holds the checks" "$(cat "$tmp/pyerr")"; fi

# A resolver that never answers: a UDP socket on port 53 that reads
# nothing.  The lookup is abandoned at the deadline.
printf 'nameserver 127.0.0.1\noptions timeout:30 attempts:5\n' >"$tmp/resolv.conf"
cat >"$tmp/dead.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { master = ["master:$port"]; worker = ["worker:$port", "notinhosts:$port"]; }; }; } );
CONF
ns_bg W python3 -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', 53)); time.sleep(120)"
sleep 0.3
start=$(date +%s%N)
muster_in W worker "$tmp/hosts.W" "$tmp/resolv.conf=/etc/resolv.conf" -- -c "$tmp/dead.conf" \
	doctor --task worker:0 --timeout 1
elapsed=$((($(date +%s%N) - start) / 1000000))
expect_status $EX_PROBLEM "a resolver that never answers is a problem"
expect_row problem name notinhosts 'no answer within 500 ms' "the name it holds is named"
check "the lookup is abandoned at --timeout 1 ($elapsed ms)" test "$elapsed" -lt 2000
expect_row ok interface wa '' "the other checks still report: the interface is wa,"
expect_row ok reach master 'refused' "... and the master answers in the time left"
finish
