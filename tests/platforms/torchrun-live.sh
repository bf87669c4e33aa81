#!/bin/sh
# Debian's torchrun (python3-torch) starts workers that run muster env and
# muster resolve with the shipped chain: muster gives each worker what
# torchrun gave it.  One node of three workers, then two nodes of two on
# this machine (a static rendezvous), whose resolve names the other
# node's workers as unknown.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"

py=/usr/bin/python3
"$py" -c 'import torch.distributed.run' 2>/dev/null ||
	skip_all "python3-torch is not installed for $py"
unset ASAN_OPTIONS UBSAN_OPTIONS # the workers' muster is not in python's process tree
worker=$MUSTER_TEST_SRCDIR/tests/platforms/torchrun_worker.py
vars=MASTER_ADDR,MASTER_PORT,WORLD_SIZE,RANK,LOCAL_RANK,LOCAL_WORLD_SIZE,GROUP_RANK
port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

# torchrun ARGS...: Debian's torch 1.13 on Python 3.11 needs --redirects
# and --tee to start (tests/launch/torch.sh).
torchrun() {
	env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		MUSTER_PLUGIN_PATH="$MUSTER_PLUGIN_PATH" LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}" \
		timeout 120 "$py" -m torch.distributed.run --redirects 2 --tee 2 "$@"
}

torchrun --nnodes 1 --nproc_per_node 3 --master_addr 127.0.0.1 --master_port "$port" \
	"$worker" "$MUSTER_BIN" "$shipped" "$vars" >"$tmp/one" 2>"$tmp/one.err"
for r in 0 1 2; do
	if grep -q "rank $r: env exit 0, resolve exit 0: same" "$tmp/one"; then
		pass "one node, worker $r: muster env gives torchrun's $vars; resolve works"
	else
		fail "one node, worker $r" "$(cat "$tmp/one" "$tmp/one.err")"
	fi
done

node() {
	torchrun --nnodes 2 --node_rank "$1" --nproc_per_node 2 --master_addr 127.0.0.1 \
		--master_port "$((port + 1))" "$worker" "$MUSTER_BIN" "$shipped" "$vars"
}
node 0 >"$tmp/n0" 2>"$tmp/e0" &
p0=$!
node 1 >"$tmp/n1" 2>"$tmp/e1"
wait $p0
cat "$tmp/n0" "$tmp/n1" >"$tmp/two"
for r in 0 1 2 3; do
	if grep -q "rank $r: env exit 0, resolve exit 2: same" "$tmp/two" &&
		grep -q "rank $r: resolve says.*torchrun does not know 2 of the 4 (worker:2, worker:3)" "$tmp/two"; then
		pass "two nodes, worker $r: muster env gives torchrun's $vars; resolve names node 1's workers"
	else
		fail "two nodes, worker $r" "$(cat "$tmp/two" "$tmp/e0" "$tmp/e1")"
	fi
done
finish
