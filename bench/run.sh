#!/bin/sh
# Runs every benchmark side by side with its baseline: `make bench`.
#   run.sh BUILDDIR SRCDIR
set -eu
build=$1
src=$2
export LD_LIBRARY_PATH="$build/core/.libs"
plugins=
for p in tf_config slurm mpi pbs lsf sagemaker platforms; do
	plugins="$plugins${plugins:+:}$build/plugins/$p/.libs"
done
export MUSTER_PLUGIN_PATH="$plugins"
unset TF_CONFIG MUSTER_CONF
# No platform's or launcher's variable either: the chain's detectors all
# find nothing, which is what is timed.
for v in $(env | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p'); do
	case $v in
	TORCHELASTIC_* | LOCAL_RANK | MASTER_ADDR | MASTER_PORT | WORLD_SIZE | RANK | SLURM_* | \
	OMPI_COMM_WORLD_* | PMIX_* | PMI_* | PBS_* | LSB_* | JSM_* | SM_* | PET_* | JAX_* | \
	K_MPI_* | VC_* | VK_* | TPU_* | LWS_* | SKYPILOT_* | AWS_BATCH_* | AZUREML_* | CLUSTER_SPEC | \
	JOB_COMPLETION_INDEX)
		unset "$v" ;;
	esac
done

# The real binary, not libtool's wrapper script, so we time muster alone.
muster="$build/cli/.libs/muster"
[ -x "$muster" ] || muster="$build/cli/muster"

echo "== muster resolve on the default config, against /bin/true (whole processes)"
"$build/bench/bench_process" 301 -- "$muster" -c "$src/conf/muster.conf" resolve -- /bin/true

echo
echo "== muster_resolve() on 10,000 tasks, against the floor of the same work"
"$build/bench/bench_resolve" 10000 51

echo
echo "== the default chain with no scheduler present, against tf_config + static alone"
echo "   (whole processes, interleaved)"
"$build/bench/bench_process" 301 -- "$muster" -c "$src/conf/muster.conf" resolve \
	-- "$muster" -c "$src/bench/hpc/base.conf" resolve
echo "   (muster_resolve() in one process, batches of 200 interleaved)"
"$build/bench/bench_chain" 51 "$src/conf/muster.conf" "$src/bench/hpc/base.conf"

echo
echo "== the shipped chain against the chain before the platform detectors"
echo "   (bench/platforms/before.conf: tf_config, the five schedulers, static)"
"$build/bench/bench_process" 301 -- "$muster" -c "$src/conf/muster.conf" resolve \
	-- "$muster" -c "$src/bench/platforms/before.conf" resolve
"$build/bench/bench_chain" 51 "$src/conf/muster.conf" "$src/bench/platforms/before.conf"
