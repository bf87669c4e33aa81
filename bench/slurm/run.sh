#!/bin/sh
# The 4,096-node Slurm allocation: `make bench-slurm`.
#   run.sh BUILDDIR
set -eu
build=$1
export LD_LIBRARY_PATH="$build/core/.libs"
export MUSTER_PLUGIN_PATH="$build/plugins/slurm/.libs"
unset TF_CONFIG MUSTER_CONF CUDA_VISIBLE_DEVICES SLURM_GPUS_ON_NODE SLURM_STEP_GPUS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/muster-bench-slurm.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# scontrol reads a configuration before it expands anything.
printf 'ClusterName=b\nSlurmctldHost=localhost\nNodeName=n1\nPartitionName=p Nodes=n1\n' \
	>"$tmp/slurm.conf"
SLURM_CONF="$tmp/slurm.conf"
export SLURM_CONF
bench="$build/bench/slurm/.libs/bench_slurm"
[ -x "$bench" ] || bench="$build/bench/slurm/bench_slurm"
"$bench" 4096 8 21
