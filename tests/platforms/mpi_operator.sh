#!/bin/sh
# MPI Operator v2 (pkg/controller/mpi_job_controller.go) and the Trainer's
# MPI runtime: the launcher pod gets the ranks as mpirun lays them out from
# /etc/mpi/hostfile (slot by slot), no own task; a worker pod outside
# mpirun is no rank; under mpirun the mpi entry answers.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/platforms/lib.sh"

cat >"$tmp/hostfile" <<HOSTS
pi-worker-0.pi.default.svc slots=2
pi-worker-1.pi.default.svc slots=2
HOSTS
launcher() {
	on KUBERNETES_SERVICE_HOST=10.96.0.1 K_MPI_JOB_ROLE=launcher \
		OMPI_MCA_orte_default_hostfile="$tmp/hostfile" OMPI_MCA_orte_keep_fqdn_hostnames=true \
		OMPI_MCA_orte_set_default_slots=2 OMPI_MCA_plm_rsh_args='-o ConnectionAttempts=10' "$@"
}
launcher -- resolve
expect_json '{"cluster":{"worker":["pi-worker-0.pi.default.svc:8888","pi-worker-0.pi.default.svc:8889","pi-worker-1.pi.default.svc:8888","pi-worker-1.pi.default.svc:8889"]}}' \
	"the launcher: four ranks, two a host, in the host file's order; no own task"
launcher -- hostfile --for mpich
expect "hostfile gives the job back in another launcher's form" 0 "pi-worker-0.pi.default.svc:2
pi-worker-1.pi.default.svc:2"
launcher -- env --for pytorch
expect_err "env on the launcher: it is no rank" 5 "own task is unknown"

# Intel MPI's form, "host:N", from I_MPI_HYDRA_HOST_FILE.
printf 'pi-launcher.pi.default.svc:1\npi-worker-0.pi.default.svc:3\n' >"$tmp/hydra"
on K_MPI_JOB_ROLE=launcher I_MPI_HYDRA_HOST_FILE="$tmp/hydra" -- resolve
expect_json '{"cluster":{"worker":["pi-launcher.pi.default.svc:8888","pi-worker-0.pi.default.svc:8888","pi-worker-0.pi.default.svc:8889","pi-worker-0.pi.default.svc:8890"]}}' \
	"Intel MPI host file, the launcher running ranks first"

# The Trainer's MPI runtime sets no role: its host file in a pod.
on KUBERNETES_SERVICE_HOST=10.96.0.1 OMPI_MCA_orte_default_hostfile="$tmp/hostfile" -- resolve
expect_out_match '"worker":\["pi-worker-0' "Trainer MPI runtime: the host file without K_MPI_JOB_ROLE"
# ... while outside a pod that variable is a user's own mpirun default.
on OMPI_MCA_orte_default_hostfile="$tmp/hostfile" -- resolve
expect_out_match 'localhost:2222' "outside a pod OMPI_MCA_orte_default_hostfile is no job"

on KUBERNETES_SERVICE_HOST=10.96.0.1 K_MPI_JOB_ROLE=worker -- resolve
expect_err "a worker pod outside mpirun: unavail, saying why" 2 \
	"an MPIJob's worker pod (K_MPI_JOB_ROLE=worker) is no rank"
launcher OMPI_MCA_orte_default_hostfile="$tmp/none" -- resolve
expect_err "the launcher without its host file" 2 "$tmp/none does not exist (OMPI_MCA_orte_default_hostfile)"
printf 'pi-worker-0 slots=x\n' >"$tmp/bad"
launcher OMPI_MCA_orte_default_hostfile="$tmp/bad" -- resolve
expect_err "a bad slot count, with its line" 2 "$tmp/bad line 1: slots= must be a count"
printf 'pi worker\n' >"$tmp/bad"
launcher OMPI_MCA_orte_default_hostfile="$tmp/bad" -- resolve
expect_out_match 'pi:8888' "an unknown word after the host is Open MPI's, not ours"

# The file where the operator mounts it.
if can_overlay_etc; then
	etc_file mpi/hostfile <"$tmp/hostfile"
	launcher OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile -- resolve
	expect_out_match '"worker":\["pi-worker-0.pi.default.svc:8888","pi-worker-0.pi.default.svc:8889"' \
		"/etc/mpi/hostfile, as the operator mounts it"
	on KUBERNETES_SERVICE_HOST=10.96.0.1 K_MPI_JOB_ROLE=launcher -- resolve
	expect_out_match 'pi-worker-1.pi.default.svc:8889' "K_MPI_JOB_ROLE=launcher alone: /etc/mpi/hostfile"
	etc=
else
	skip "/etc/mpi/hostfile, as the operator mounts it" "no mount namespace with an overlay here"
	skip "K_MPI_JOB_ROLE=launcher alone: /etc/mpi/hostfile" "no mount namespace with an overlay here"
fi

# A rank under mpirun in a worker pod: the mpi entry answers.
on K_MPI_JOB_ROLE=worker OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_LOCAL_SIZE=1 -- resolve
expect_err "under mpirun the mpi entry answers first" 2 "mpi(mpi)"
finish
