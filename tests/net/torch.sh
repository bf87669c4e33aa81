#!/bin/sh
# A real two-node PyTorch gloo job (Debian's python3-torch) across two
# network namespaces, started by muster run on each side.  The master's
# name resolves there to 127.0.1.1, as Debian's installer writes it, so
# gloo left to itself listens on loopback and the worker cannot reach it;
# with the interface muster chooses the all-reduce completes.  The same
# job with --no-ifname (muster sets nothing) must not complete: it is
# killed after 30 s, which shows that the test can fail.  The network is
# 192.168.x: of two gloo peers the one with the higher address connects,
# so the worker (192.168.1.2, above 127.0.1.1) is the one that must reach
# the master's advertised address.  Two processes a node: a mesh of four.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/net/lib.sh"
py=/usr/bin/python3
if ! "$py" -c 'import torch.distributed' 2>/dev/null; then
	skip_all "python3-torch is not installed for $py"
fi
net_setup 192.168
job=$MUSTER_TEST_SRCDIR/tests/launch/allreduce.py
unset GLOO_SOCKET_IFNAME NCCL_SOCKET_IFNAME TP_SOCKET_IFNAME ASAN_OPTIONS UBSAN_OPTIONS \
	MASTER_ADDR MASTER_PORT WORLD_SIZE RANK LOCAL_RANK

# both SECONDS [MUSTER-RUN-OPTION...]: the job, both nodes at once; their
# exit statuses in s0 (master) and s1 (worker), output in $tmp/n0, n1.
both() {
	limit=$1
	shift
	s0=0 s1=0
	in_ns M master "$tmp/hosts.M" -- timeout "$limit" "$MUSTER_BIN" -c "$tmp/cluster.conf" \
		run --for pytorch --task master:0 "$@" -- "$py" "$job" >"$tmp/n0" 2>"$tmp/e0" &
	p0=$!
	in_ns W worker "$tmp/hosts.W" -- timeout "$limit" "$MUSTER_BIN" -c "$tmp/cluster.conf" \
		run --for pytorch --task worker:0 "$@" -- "$py" "$job" >"$tmp/n1" 2>"$tmp/e1" || s1=$?
	wait $p0 || s0=$?
}

both 180 --nproc-per-node 2 --tee-prefix
if [ "$s0" = 0 ] && [ "$s1" = 0 ] && [ "$(grep -c 'rank [0-3] of 4 .* sum 10' "$tmp/n0" "$tmp/n1" |
	awk -F: '{ n += $2 } END { print n }')" = 4 ]; then
	pass "with the interface muster chose, the gloo all-reduce completes on both nodes"
else
	fail "with the interface muster chose, the gloo all-reduce completes on both nodes" \
		"exit statuses $s0 $s1" "$(cat "$tmp/n0" "$tmp/n1" "$tmp/e0" "$tmp/e1")"
fi

both 30 --nproc-per-node 2 --tee-prefix --no-ifname
if [ "$s0" != 0 ] || [ "$s1" != 0 ]; then
	pass "without it (--no-ifname), gloo listens on 127.0.1.1 and the job does not complete (exit $s0 $s1)"
else
	fail "without it (--no-ifname), gloo listens on 127.0.1.1 and the job does not complete" \
		"$(cat "$tmp/n0" "$tmp/n1")"
fi
finish
