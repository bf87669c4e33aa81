#!/bin/sh
# The shipped chain's detect lists lose nothing: with any one variable a
# detector reads as its signal set alone (in a pod and out of it), the
# chain answers as the same chain without the lists does, which loads and
# asks every plugin.  A list that missed a variable would answer notfound
# for it unloaded, and the chain would fall back where its plugin says
# unavail.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"
require_tools perl

perl -0pe 's/\bdetect = \[[^\]]*\];//g' "$shipped" >"$tmp/ungated.conf"
grep -q 'detect =' "$tmp/ungated.conf" && bail_out "a detect list was left in the ungated copy"

for var in TORCHELASTIC_RUN_ID RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE GROUP_RANK \
	GROUP_WORLD_SIZE MASTER_ADDR MASTER_PORT NODE_RANK TF_CONFIG SLURM_JOB_ID SLURM_PROCID \
	OMPI_COMM_WORLD_RANK PMIX_RANK PMI_RANK PBS_NODEFILE PBS_JOBID LSB_JOBID \
	JSM_NAMESPACE_RANK SM_HOSTS SM_CURRENT_HOST PET_NNODES PET_NODE_RANK PET_MASTER_ADDR \
	PET_MASTER_PORT PET_NPROC_PER_NODE PET_RDZV_ENDPOINT JAX_COORDINATOR_ADDRESS \
	JAX_NUM_PROCESSES JAX_PROCESS_ID K_MPI_JOB_ROLE OMPI_MCA_orte_default_hostfile \
	I_MPI_HYDRA_HOST_FILE HYDRA_HOST_FILE VC_TASK_INDEX VK_TASK_INDEX VC_WORKER_HOSTS \
	VC_WORKER_NUM TPU_WORKER_ID TPU_WORKER_HOSTNAMES TPU_PROCESS_ADDRESSES MEGASCALE_NUM_SLICES \
	LWS_LEADER_ADDRESS LWS_GROUP_SIZE LWS_WORKER_INDEX SKYPILOT_NODE_RANK SKYPILOT_NODE_IPS \
	SKYPILOT_NUM_NODES AWS_BATCH_JOB_ID AWS_BATCH_JOB_NODE_INDEX AWS_BATCH_JOB_NUM_NODES \
	AWS_BATCH_JOB_MAIN_NODE_INDEX AWS_BATCH_JOB_MAIN_NODE_PRIVATE_IPV4_ADDRESS AZUREML_RUN_ID \
	CLUSTER_SPEC; do
	for pod in "" KUBERNETES_SERVICE_HOST=10.96.0.1; do
		on $pod "$var=1" -- resolve
		gated="$rc $out"
		conf=$tmp/ungated.conf on $pod "$var=1" -- resolve
		check_eq "$var alone${pod:+ in a pod}: exit $rc either way" "$gated" "$rc $out"
	done
done
finish
