#!/bin/sh
# An Azure Machine Learning run as its distributions set it
# (how-to-train-distributed-gpu): PyTorch's per-process variables, MPI's
# Open MPI ranks with AZ_BATCH_MASTER_NODE.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"

# PyTorch distribution, 2 nodes x 4 processes: process 6 (node 1).
on AZUREML_RUN_ID=run_1 MASTER_ADDR=10.0.0.4 MASTER_PORT=6105 WORLD_SIZE=8 NODE_RANK=1 RANK=6 \
	LOCAL_RANK=2 -- env --for pytorch
expect_env "PyTorch distribution: the launcher's ranks" MASTER_ADDR=10.0.0.4 MASTER_PORT=6105 \
	WORLD_SIZE=8 RANK=6 LOCAL_RANK=2 LOCAL_WORLD_SIZE=4 NODE_RANK=1
# ... node 0 cannot know its share without LOCAL_WORLD_SIZE.
on AZUREML_RUN_ID=run_1 MASTER_ADDR=10.0.0.4 MASTER_PORT=6105 WORLD_SIZE=8 NODE_RANK=0 RANK=2 \
	LOCAL_RANK=2 -- resolve
expect_err "node 0 without LOCAL_WORLD_SIZE: unavail, saying so" 2 \
	"LOCAL_RANK is set but not LOCAL_WORLD_SIZE, and NODE_RANK is 0: the processes per node are unknown"

# MPI distribution with a chain whose mpi entry is not there (the shipped
# chain's mpi entry answers first; an administrator's may not).
conf=$tmp/azure.conf
cat >"$conf" <<CONF
chain = ( { plugin = "platforms"; config = { platform = "azureml"; }; detect = [ "AZUREML_RUN_ID" ];
            on_unavail = "return"; },
          { plugin = "static"; config = { jobs = { worker = [ "localhost:1" ]; }; }; } );
CONF
on AZUREML_RUN_ID=run_1 OMPI_COMM_WORLD_RANK=5 OMPI_COMM_WORLD_SIZE=8 OMPI_COMM_WORLD_LOCAL_RANK=1 \
	OMPI_COMM_WORLD_LOCAL_SIZE=4 AZ_BATCH_MASTER_NODE=10.0.0.4:6105 -- env --for pytorch
expect_env "MPI distribution: AZ_BATCH_MASTER_NODE is the master" MASTER_ADDR=10.0.0.4 \
	MASTER_PORT=6105 WORLD_SIZE=8 RANK=5 LOCAL_RANK=1 LOCAL_WORLD_SIZE=4 NODE_RANK=1
on AZUREML_RUN_ID=run_1 OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 \
	OMPI_COMM_WORLD_LOCAL_SIZE=2 AZ_BATCHAI_MPI_MASTER_NODE=10.0.0.4 -- resolve
expect_json '{"cluster":{"worker":["10.0.0.4:2222","10.0.0.4:2223"]},"task":{"type":"worker","index":1}}' \
	"one node: AZ_BATCHAI_MPI_MASTER_NODE"
on AZUREML_RUN_ID=run_1 OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 \
	OMPI_COMM_WORLD_LOCAL_SIZE=2 -- resolve
expect_err "MPI without a master" 2 "neither AZ_BATCH_MASTER_NODE nor AZ_BATCHAI_MPI_MASTER_NODE is set"
on AZUREML_RUN_ID=run_1 MASTER_ADDR=10.0.0.4 -- resolve
expect_err "half of the PyTorch distribution" 2 "MASTER_PORT is not set, but MASTER_ADDR is"
on AZUREML_RUN_ID=run_1 -- resolve
expect_json '{"cluster":{"worker":["localhost:1"]}}' "a run without a distribution: one process"
finish
