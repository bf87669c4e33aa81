#!/bin/sh
# muster run --numa-binding on sysfs trees (topo-tree.sh) whose CPUs are 0
# and 1: each worker reports its own Cpus_allowed_list, for node, socket
# and exclusive, with --gpus-per-proc slices and CUDA_VISIBLE_DEVICES; the
# one process muster run execs is pinned too, and so is each worker of an
# --elastic generation.  A machine without NUMA information, without GPUs,
# or workers past the GPUs run unpinned with one warning; a binding that
# leaves a worker no CPU (a node of CPUs that do not exist here, or not
# ours under taskset) is an error naming them.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/launch/topo-tree.sh"
unset CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES MUSTER_SYSROOT
conf=$MUSTER_TEST_SRCDIR/tests/launch/cluster.conf
mine=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$$/status)
case $mine in
0-1 | 0-[1-9]* | 0,1*) ;;
*) skip_all "the trees name CPUs 0 and 1; this process may run on $mine" ;;
esac

# Each worker prints its local rank and its own Cpus_allowed_list.
report='printf "%s %s\n" "$LOCAL_RANK" "$(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/$$/status)"'

# pinned TREE ARGS...: muster -v run with MUSTER_SYSROOT=TREE and ARGS, its
# workers' lines sorted by local rank in $tmp/out.
pinned() {
	tree=$1
	shift
	MUSTER_SYSROOT=$tree run -v -c "$conf" run --for pytorch "$@" -- sh -c "$report"
	sort -n "$tmp/out" >"$tmp/sorted"
	mv "$tmp/sorted" "$tmp/out"
}

two=$tmp/two-node
two_node_machine "$two"
pinned "$two" --nproc-per-node 4 --numa-binding node
expect_status 0 "--numa-binding node: 4 workers on 4 GPUs of two nodes"
expect_out "0 0
1 0
2 1
3 1" "... each on its GPU's node's CPUs"
expect_err_match "^muster: info: run: --numa-binding node: local rank 2, GPU 2 \(NUMA node 1\): CPUs 1$" \
	"... and -v says what it pinned"
MUSTER_SYSROOT=$two run -c "$conf" run --for pytorch --nproc-per-node 4 --numa-binding node -- true
expect_err_nomatch "numa-binding" "... silently without -v"
pinned "$two" --nproc-per-node 4 --numa-binding socket
expect_out "0 0-1
1 0-1
2 0-1
3 0-1" "--numa-binding socket: both nodes of the package"
pinned "$two" --nproc-per-node 2 --gpus-per-proc 2 --numa-binding node
expect_out "0 0
1 1" "--gpus-per-proc 2: a worker's slice of GPUs 0,1 is on node 0, of 2,3 on node 1"
expect_err_match "local rank 1, GPUs 2,3 \(NUMA node 1, 1\): CPUs 1$" "... named in the -v line"
CUDA_VISIBLE_DEVICES=2,GPU-00000000 pinned "$two" --nproc-per-node gpu --numa-binding node
expect_out "0 1
1 0" "CUDA_VISIBLE_DEVICES=2,GPU-0...: local rank 0 drives GPU 2 (node 1), rank 1 GPU 0"

# Exclusive: a node's physical cores are shared out among its GPUs.
cores=$tmp/cores
one_node_machine "$cores" "0 1"
pinned "$cores" --nproc-per-node gpu --numa-binding exclusive
expect_out "0 0
1 1" "--numa-binding exclusive: two cores for two GPUs, one each"
pinned "$cores" --nproc-per-node 1 --gpus-per-proc 2 --numa-binding exclusive --tee-prefix
expect_out_match '^\[[0-9]+\]: 0 0-1$' "... a worker with both GPUs gets both shares"
pinned "$cores" --nproc-per-node gpu --numa-binding node
expect_out "0 0-1
1 0-1" "... where node gives both the whole node"
threads=$tmp/threads
one_node_machine "$threads" "0-1 0-1"
MUSTER_SYSROOT=$threads run -c "$conf" run --for pytorch --nproc-per-node gpu \
	--numa-binding exclusive -- sh -c 'echo started'
expect_status 5 "exclusive: one core of two threads cannot be shared by two GPUs"
expect_err_match "the CPUs near GPU 0 \(0000:03:00.0\), 0-1, hold 1 physical core this process may run on, too few for the 2 GPUs there" \
	"... said so, nothing started"
check "... and no worker ran" test ! -s "$tmp/out"

# The one process that muster run execs is pinned itself.
CUDA_VISIBLE_DEVICES=3 MUSTER_SYSROOT=$two run -c "$conf" run --for pytorch --numa-binding node \
	-- sh -c 'exec sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status'
expect_out "1" "one process, exec'd: pinned to GPU 3's node"

# --elastic pins each generation's workers.
MUSTER_SYSROOT=$two run -c "$conf" run --elastic --settle-ms 0 --for pytorch --nproc-per-node 2 \
	--numa-binding socket --tee-prefix -- sh -c "$report"
sed 's/^\[[0-9]*\]: //' "$tmp/out" | sort -n >"$tmp/sorted"
mv "$tmp/sorted" "$tmp/out"
expect_out "0 0-1
1 0-1" "--elastic: the generation's workers are pinned"

# Unpinned, with one warning: no NUMA information, no GPU, ranks past the GPUs.
bare=$tmp/bare
nvidia_gpu "$bare" 0000:07:00.0 0
nvidia_gpu "$bare" 0000:0f:00.0 1
pinned "$bare" --nproc-per-node gpu --numa-binding node
expect_status 0 "a machine whose sysfs has no NUMA information runs"
expect_out "0 $mine
1 $mine" "... its workers unpinned"
expect_err_match "^muster: warning: run: --numa-binding: no NUMA information for GPU 0 \(0000:07:00.0\) in sysfs: 2 of 2 workers run unpinned$" \
	"... with a warning"
check_eq "... one warning" "$(grep -c 'numa-binding' "$tmp/err")" 1
none=$tmp/none
mkdir -p "$none/sys" "$none/proc"
pinned "$none" --nproc-per-node 2 --numa-binding socket
expect_out "0 $mine
1 $mine" "no GPU: unpinned"
expect_err_match "no GPU on this machine: 2 of 2 workers run unpinned" "... with a warning"
pinned "$two" --nproc-per-node 6 --numa-binding node
expect_out "0 0
1 0
2 1
3 1
4 $mine
5 $mine" "6 workers, 4 GPUs: local ranks 4 and 5 unpinned"
expect_err_match "local ranks past the GPUs have no GPU of their own: 2 of 6 workers run unpinned" \
	"... with a warning"

# A node whose CPUs this process may not run on: an error, nothing starts.
far=$tmp/far
two_node_machine "$far"
put "$far" sys/devices/system/node/node1/cpulist 4094-4095
MUSTER_SYSROOT=$far run -c "$conf" run --for pytorch --nproc-per-node 4 --numa-binding node \
	-- sh -c 'echo started'
expect_status 5 "GPU 2's node has CPUs 4094-4095, which do not exist here"
expect_err_match "run: --numa-binding node: the CPUs near GPU 2 \(0000:83:00.0\) are 4094-4095, and this process may run on none of them \(only on $mine\)" \
	"... an error naming the GPU, its CPUs and ours"
check "... and no worker started" test ! -s "$tmp/out"
if command -v taskset >/dev/null 2>&1; then
	MUSTER_SYSROOT=$two taskset -c 0 "$MUSTER_BIN" -c "$conf" run --for pytorch \
		--nproc-per-node 4 --numa-binding socket -- sh -c "$report" >"$tmp/out" 2>"$tmp/err" || :
	check_eq "under taskset -c 0, socket binds to the package's CPUs muster run may use" \
		"$(sort -n "$tmp/out" | tr '\n' ' ')" "0 0 1 0 2 0 3 0 "
	status=0
	MUSTER_SYSROOT=$two taskset -c 0 "$MUSTER_BIN" -c "$conf" run --for pytorch \
		--nproc-per-node 4 --numa-binding node -- true >"$tmp/out" 2>"$tmp/err" || status=$?
	expect_status 5 "under taskset -c 0, node 1's CPU is not ours: an error"
else
	skip "--numa-binding under taskset" "taskset is not installed"
fi

run -c "$conf" run --for pytorch --numa-binding cores -- true
expect_status 64 "an unknown mode"
expect_err_match "run: --numa-binding 'cores': expected node, socket or exclusive" "... named"
finish
