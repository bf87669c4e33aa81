#!/bin/sh
# Real PyTorch (Debian's python3-torch, gloo on loopback): two nodes of two
# processes each, started by two muster run invocations against a static
# cluster and against TF_CONFIG, and by torchrun fed with muster env.
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

# check NAME: both nodes' logs hold the four ranks, each with the sum 10.
# Matched anywhere in a line: torchrun's --tee threads may write two ranks'
# lines without a newline between them.
check() {
	cat "$tmp/n0" "$tmp/n1" |
		grep -o 'rank [0-9]* of [0-9]* local [0-9]* node [0-9]* sum [0-9]*' | sort >"$tmp/all"
	want="rank 0 of 4 local 0 node 0 sum 10
rank 1 of 4 local 1 node 0 sum 10
rank 2 of 4 local 0 node 1 sum 10
rank 3 of 4 local 1 node 1 sum 10"
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
