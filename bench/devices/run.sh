#!/bin/sh
# This machine's GPUs without NVML where it is not needed (`make
# bench-devices`): whole `muster accelerators --local` processes on a DGX
# H100-like tree under --sysroot (tests/launch/topo-tree.sh) beside
# /bin/true, `muster env --nproc-per-node gpu` on the shipped config beside
# `muster resolve` (what the devices add), `muster topo` beside
# `accelerators --local`; the same in one process (bench_devices); and,
# where libnvidia-ml.so.1 loads, this machine's own GPUs: `muster
# accelerators --local` beside a process that takes the NVML path muster
# took before (bench_devices nvml), and both in one process.
#   run.sh BUILDDIR SRCDIR [RUNS]
set -eu
build=$1
src=$2
runs=${3:-301}
export LD_LIBRARY_PATH="$build/core/.libs"
plugins=
for p in tf_config slurm mpi pbs lsf sagemaker; do
	plugins="$plugins${plugins:+:}$build/plugins/$p/.libs"
done
export MUSTER_PLUGIN_PATH="$plugins"
unset TF_CONFIG MUSTER_CONF MUSTER_SYSROOT CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES \
	HIP_VISIBLE_DEVICES

muster="$build/cli/.libs/muster"
[ -x "$muster" ] || muster="$build/cli/muster"
bench="$build/bench/devices/.libs/bench_devices"
[ -x "$bench" ] || bench="$build/bench/devices/bench_devices"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/muster-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/launch/topo-tree.sh"
dgx_machine "$tmp/dgx"
conf=$src/conf/muster.conf

echo "== muster accelerators --local --sysroot (8 GPUs, 4 NVSwitches), against /bin/true"
"$build/bench/bench_process" "$runs" -- "$muster" accelerators --local --sysroot "$tmp/dgx" \
	-- /bin/true
echo
echo "== muster env --for pytorch --nproc-per-node gpu on the same tree, against muster resolve"
echo "   (the shipped config, no scheduler present)"
MUSTER_SYSROOT=$tmp/dgx "$build/bench/bench_process" "$runs" -- "$muster" -c "$conf" \
	env --for pytorch --nproc-per-node gpu -- "$muster" -c "$conf" resolve
echo
echo "== muster topo --sysroot on the same tree, against accelerators --local"
"$build/bench/bench_process" "$runs" -- "$muster" topo --sysroot "$tmp/dgx" \
	-- "$muster" accelerators --local --sysroot "$tmp/dgx"
echo
echo "== muster_local_devices() in one process, on the tree"
"$bench" "$runs" "$tmp/dgx"
echo
if "$bench" nvml 2>/dev/null; then
	echo "== this machine: muster accelerators --local against the NVML path (whole processes)"
	"$build/bench/bench_process" "$runs" -- "$muster" accelerators --local -- "$bench" nvml
	echo
	echo "== this machine: muster env --nproc-per-node gpu, against muster resolve"
	"$build/bench/bench_process" "$runs" -- "$muster" -c "$conf" \
		env --for pytorch --nproc-per-node gpu -- "$muster" -c "$conf" resolve
	echo
	echo "== this machine, in one process"
	"$bench" "$runs"
else
	echo "== this machine: libnvidia-ml.so.1 does not load here; no NVML path to compare"
	"$bench" "$runs"
fi
