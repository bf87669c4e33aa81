#!/bin/sh
# A Volcano Job's pod as its plugins set it (pkg/controllers/job/plugins:
# env's VK_TASK_INDEX/VC_TASK_INDEX, svc's VC_<TASK>_HOSTS/_NUM and
# /etc/volcano/<task>.host, pytorch's MASTER_ADDR/PORT, WORLD_SIZE, RANK):
# the own task by the pod's host name, PyTorch ranks as the pytorch plugin
# numbers them (master task first).
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"
can_set_hostname || skip_all "no UTS namespace here (a pod's host name is its name)"

# Job vj: task master (1 replica) and worker (2), svc, env and pytorch.
pod() {
	name=$1 index=$2 rank=$3
	shift 3
	on_host "$name" VK_TASK_INDEX="$index" VC_TASK_INDEX="$index" \
		VC_MASTER_HOSTS=vj-master-0.vj VC_MASTER_NUM=1 \
		VC_WORKER_HOSTS=vj-worker-0.vj,vj-worker-1.vj VC_WORKER_NUM=2 \
		MASTER_ADDR=vj-master-0.vj MASTER_PORT=23456 WORLD_SIZE=3 RANK="$rank" \
		KUBERNETES_SERVICE_HOST=10.96.0.1 "$@"
}
pod vj-worker-1 1 2 -- resolve
expect_json '{"cluster":{"master":["vj-master-0.vj:23456"],"worker":["vj-worker-0.vj:23456","vj-worker-1.vj:23456"]},"task":{"type":"worker","index":1}}' \
	"the tasks' hosts, master first; this pod by its host name"
pod vj-worker-1 1 2 -- env --for pytorch
expect_env "PyTorch ranks as Volcano's pytorch plugin numbers them" MASTER_ADDR=vj-master-0.vj \
	MASTER_PORT=23456 WORLD_SIZE=3 RANK=2 NODE_RANK=2 LOCAL_RANK=0
pod vj-master-0 0 0 -- env --for pytorch
expect_env "the master pod is rank 0" RANK=0 WORLD_SIZE=3

# svc alone (an MPI or generic job): no MASTER_ADDR, the entry's port.
on_host mpi-job-worker-0 VC_TASK_INDEX=0 VK_TASK_INDEX=0 VC_MPIMASTER_HOSTS=mpi-job-mpimaster-0.mpi-job \
	VC_MPIMASTER_NUM=1 VC_WORKER_HOSTS=mpi-job-worker-0.mpi-job,mpi-job-worker-1.mpi-job VC_WORKER_NUM=2 \
	MPI_HOST=mpi-job-worker-0.mpi-job,mpi-job-worker-1.mpi-job -- resolve
expect_json '{"cluster":{"worker":["mpi-job-worker-0.mpi-job:2222","mpi-job-worker-1.mpi-job:2222"],"mpimaster":["mpi-job-mpimaster-0.mpi-job:2222"]},"task":{"type":"worker","index":0}}' \
	"svc alone: every task, worker before the others"
# A task name with '-': VC_MY_TASK_HOSTS is task my-task.
on_host j-my-task-0 VC_MY_TASK_HOSTS=j-my-task-0.j VC_MY_TASK_NUM=1 VC_TASK_INDEX=0 -- resolve
expect_json '{"cluster":{"my-task":["j-my-task-0.j:2222"]},"task":{"type":"my-task","index":0}}' \
	"a task named with '-' keeps it"

# What does not add up.
pod vj-worker-1 1 5 -- resolve
expect_err "RANK against the master-first order" 2 "RANK is 5, but with the master task first this pod (vj-worker-1) is rank 2"
pod vj-worker-1 0 2 -- resolve
expect_err "VC_TASK_INDEX against the host name" 2 "VC_TASK_INDEX is 0, but this pod (vj-worker-1) is host 1 of task worker"
pod vj-worker-7 1 2 -- resolve
expect_err "a host name in no task" 2 "this pod's host name vj-worker-7 is none of its Volcano tasks' hosts"
pod vj-worker-1 1 2 VC_WORKER_NUM=3 -- resolve
expect_err "VC_<TASK>_NUM against the list" 2 "VC_WORKER_NUM is 3 but VC_WORKER_HOSTS lists 2 hosts"
pod vj-worker-1 1 2 VC_WORKER_HOSTS='vj-worker-0.vj,,vj-worker-1.vj' -- resolve
expect_err "an empty host" 2 'VC_WORKER_HOSTS="vj-worker-0.vj,,vj-worker-1.vj": item 2 is empty'
on_host vj-worker-1 VC_TASK_INDEX=1 VK_TASK_INDEX=1 -- resolve
expect_err "the env plugin alone: the members need svc" 2 \
	"VC_TASK_INDEX is set but no task's hosts are"

# Without the variables, the svc plugin's files.
if can_overlay_etc; then
	etc_file volcano/master.host vj-master-0.vj
	etc_file volcano/worker.host vj-worker-0.vj vj-worker-1.vj
	on_host vj-worker-0 VC_TASK_INDEX=0 VK_TASK_INDEX=0 -- resolve
	expect_json '{"cluster":{"worker":["vj-worker-0.vj:2222","vj-worker-1.vj:2222"],"master":["vj-master-0.vj:2222"]},"task":{"type":"worker","index":0}}' \
		"/etc/volcano/<task>.host when the variables are not there"
	etc=
else
	skip "/etc/volcano/<task>.host when the variables are not there" "no mount namespace with an overlay here"
fi
finish
