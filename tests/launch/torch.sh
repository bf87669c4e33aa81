#!/bin/sh
# Real PyTorch (Debian's python3-torch, gloo on loopback): two nodes of two
# processes each, started by two muster run invocations against a static
# cluster and against TF_CONFIG, and by torchrun fed with muster env; and a
# scheduler's placement (tasks that are processes, several a host): four
# muster runs of one process, two of two.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
fixtures=$MUSTER_TEST_SRCDIR/tests/cli

py=/usr/bin/python3
worker=$MUSTER_TEST_SRCDIR/tests/launch/allreduce.py
if ! "$py" -c 'import torch.distributed' 2>/dev/null; then
	skip "PyTorch launches" "python3-torch is not installed for $py"
	finish
fi
export GLOO_SOCKET_IFNAME=lo
unset ASAN_OPTIONS UBSAN_OPTIONS

port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$tmp/two.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { worker = ["127.0.0.1:$port", "127.0.0.1:$((port + 1))"]; }; }; } );
CONF

# check NAME [WANT]: both nodes' logs hold the four ranks, each with the
# sum 10 (by default two nodes of two).  Matched anywhere in a line:
# torchrun's --tee threads may write two ranks' lines without a newline
# between them.
check() {
	cat "$tmp/n0" "$tmp/n1" |
		grep -o 'rank [0-9]* of [0-9]* local [0-9]* node [0-9]* sum [0-9]*' | sort >"$tmp/all"
	want=${2-"rank 0 of 4 local 0 node 0 sum 10
rank 1 of 4 local 1 node 0 sum 10
rank 2 of 4 local 0 node 1 sum 10
rank 3 of 4 local 1 node 1 sum 10"}
	if [ "$s0" = 0 ] && [ "$s1" = 0 ] && [ "$(cat "$tmp/all")" = "$want" ]; then
		pass "$1"
	else
		fail "$1" "exit statuses $s0 $s1" "$(cat "$tmp/n0" "$tmp/n1")" "$(cat "$tmp/e0" "$tmp/e1")"
	fi
}

# Two muster run invocations, one per node.
s0=0 s1=0
timeout 180 "$MUSTER_BIN" -c "$tmp/two.conf" run --for pytorch --task worker:0 --nproc-per-node 2 \
	-- "$py" "$worker" >"$tmp/n0" 2>"$tmp/e0" &
p0=$!
timeout 180 "$MUSTER_BIN" -c "$tmp/two.conf" run --for pytorch --task worker:1 --nproc-per-node 2 \
	-- "$py" "$worker" >"$tmp/n1" 2>"$tmp/e1" || s1=$?
wait $p0 || s0=$?
check "muster run x 2 (static): 4 gloo ranks all-reduce to 10"

# The same through the tf_config backend: each node's TF_CONFIG names it.
tf() {
	echo "{\"cluster\":{\"worker\":[\"127.0.0.1:$((port + 2))\",\"127.0.0.1:$((port + 3))\"]},\"task\":{\"type\":\"worker\",\"index\":$1}}"
}
s0=0 s1=0
TF_CONFIG=$(tf 0) timeout 180 "$MUSTER_BIN" -c "$fixtures/tf-only.conf" run --for pytorch \
	--nproc-per-node 2 --tee-prefix -- "$py" "$worker" >"$tmp/n0" 2>"$tmp/e0" &
p0=$!
TF_CONFIG=$(tf 1) timeout 180 "$MUSTER_BIN" -c "$fixtures/tf-only.conf" run --for pytorch \
	--nproc-per-node 2 --tee-prefix -- "$py" "$worker" >"$tmp/n1" 2>"$tmp/e1" || s1=$?
wait $p0 || s0=$?
check "muster run x 2 (TF_CONFIG, --tee-prefix): 4 gloo ranks all-reduce to 10"

# A scheduler's placement (static's placement = "processes"): four tasks
# dealt cyclically over two hosts (127.0.0.1 and localhost are two host
# names, so two nodes), one process each, each started by its own muster
# run as srun starts its tasks; the master is rank 0's host at the config's
# master_port.
cat >"$tmp/procs.conf" <<CONF
master_port = $((port + 4));
chain = ( { plugin = "static"; config = { placement = "processes"; job_id = "77";
  jobs = { worker = ["127.0.0.1:1", "localhost:1", "127.0.0.1:2", "localhost:2"]; }; }; } );
CONF
for t in 0 1 2 3; do
	timeout 180 "$MUSTER_BIN" -c "$tmp/procs.conf" run --for pytorch --task "worker:$t" \
		-- "$py" "$worker" >"$tmp/p$t" 2>"$tmp/pe$t" &
	eval "pid$t=\$!"
done
s0=0 s1=0
for t in 0 1 2 3; do eval "wait \$pid$t" || s0=$?; done
cat "$tmp/p0" "$tmp/p1" >"$tmp/n0"
cat "$tmp/p2" "$tmp/p3" >"$tmp/n1"
cat "$tmp/pe0" "$tmp/pe1" >"$tmp/e0"
cat "$tmp/pe2" "$tmp/pe3" >"$tmp/e1"
check "muster run x 4 (processes, cyclic over 2 hosts): ranks, local ranks and node ranks as a scheduler's" \
"rank 0 of 4 local 0 node 0 sum 10
rank 1 of 4 local 0 node 1 sum 10
rank 2 of 4 local 1 node 0 sum 10
rank 3 of 4 local 1 node 1 sum 10"

# Two tasks of one host, each running --nproc-per-node 2: its own share of
# the host, numbered after the other task's: one node of four.
cat >"$tmp/share.conf" <<CONF
master_port = $((port + 5));
chain = ( { plugin = "static"; config = { placement = "processes";
  jobs = { worker = ["127.0.0.1:1", "127.0.0.1:2"]; }; }; } );
CONF
s0=0 s1=0
timeout 180 "$MUSTER_BIN" -c "$tmp/share.conf" run --for pytorch --task worker:0 --nproc-per-node 2 \
	-- "$py" "$worker" >"$tmp/n0" 2>"$tmp/e0" &
p0=$!
timeout 180 "$MUSTER_BIN" -c "$tmp/share.conf" run --for pytorch --task worker:1 --nproc-per-node 2 \
	-- "$py" "$worker" >"$tmp/n1" 2>"$tmp/e1" || s1=$?
wait $p0 || s0=$?
check "muster run --nproc-per-node 2 x 2 tasks of one host: ranks 0-3, local ranks 0-3" \
"rank 0 of 4 local 0 node 0 sum 10
rank 1 of 4 local 1 node 0 sum 10
rank 2 of 4 local 2 node 0 sum 10
rank 3 of 4 local 3 node 0 sum 10"

# torchrun reads the arguments muster env exports (PET_*).  Debian's torch
# 1.13 on Python 3.11 needs --redirects and --tee to start.
node() {
	eval "$("$MUSTER_BIN" -c "$tmp/two.conf" env --for pytorch --task "worker:$1" --nproc-per-node 2)"
	exec timeout 180 "$py" -m torch.distributed.run --redirects 2 --tee 2 "$worker"
}
s0=0 s1=0
(node 0) >"$tmp/n0" 2>"$tmp/e0" &
p0=$!
(node 1) >"$tmp/n1" 2>"$tmp/e1" || s1=$?
wait $p0 || s0=$?
check "muster env | torch.distributed.run x 2: 4 gloo ranks all-reduce to 10"
finish
