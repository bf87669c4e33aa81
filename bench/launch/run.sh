#!/bin/sh
# Launch overhead of a 2-node x 2-process job on loopback (`make
# bench-launch`): /bin/sh starting the four workers directly, muster run,
# and Debian's torchrun --no_python, interleaved run by run.  With
# `resolve`, also `muster resolve` followed by the /bin/sh line: one muster
# process start and resolve, without muster run's own work.
#   run.sh BUILDDIR SRCDIR [ROUNDS [resolve]]
set -eu
build=$1
rounds=${3:-5}
with_resolve=${4:-}
case $with_resolve in
'' | resolve) ;;
*) echo "usage: run.sh BUILDDIR SRCDIR [ROUNDS [resolve]]" >&2; exit 2 ;;
esac
export LD_LIBRARY_PATH="$build/core/.libs"
export MUSTER_PLUGIN_PATH="$build/plugins/tf_config/.libs"
export GLOO_SOCKET_IFNAME=lo
unset TF_CONFIG MUSTER_CONF

muster="$build/cli/.libs/muster"
[ -x "$muster" ] || muster="$build/cli/muster"
w="$build/bench/launch/worker"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/muster-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
port=29611
cat >"$tmp/two.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { worker = ["127.0.0.1:$port", "127.0.0.1:$((port + 1))"]; }; }; } );
CONF

mr="exec $muster -c $tmp/two.conf run --for pytorch --nproc-per-node 2"
set -- -- /bin/sh "RANK=0 $w & RANK=1 $w & wait" "RANK=2 $w & RANK=3 $w & wait" \
	-- "muster run" "$mr --task worker:0 -- $w" "$mr --task worker:1 -- $w"
if [ -n "$with_resolve" ]; then
	mres="$muster -c $tmp/two.conf resolve >/dev/null;"
	set -- "$@" -- "muster resolve; /bin/sh" "$mres RANK=0 $w & RANK=1 $w & wait" \
		"$mres RANK=2 $w & RANK=3 $w & wait"
fi
if /usr/bin/python3 -c 'import torch.distributed.run' 2>/dev/null; then
	tr="exec /usr/bin/python3 -m torch.distributed.run --no_python --nnodes 2 --nproc_per_node 2"
	tr="$tr --master_addr 127.0.0.1 --master_port $((port + 2)) --redirects 2 --tee 2"
	set -- "$@" -- "torchrun --no_python" "$tr --node_rank 0 $w" "$tr --node_rank 1 $w"
else
	echo "(torchrun left out: python3-torch is not installed)"
fi
"$build/bench/launch/bench_launch" "$rounds" "$tmp" "$@"
