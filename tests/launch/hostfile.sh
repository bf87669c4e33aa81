#!/bin/sh
# muster hostfile: each launcher's form, slots summed per host, and Open
# MPI's mpirun starting a real MPI program across the slots on loopback.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
fixtures=$MUSTER_TEST_SRCDIR/tests/cli

conf=$MUSTER_TEST_SRCDIR/tests/launch/cluster.conf

run -c "$conf" hostfile --for openmpi
expect_status 0 "hostfile --for openmpi"
expect_out "127.0.0.1 slots=2
localhost slots=1" "openmpi: the chief's and worker 0's host is one line with both slots"
run -c "$conf" hostfile --for deepspeed --nproc-per-node 2
expect_out "127.0.0.1 slots=4
localhost slots=2" "deepspeed: slots = processes per node, summed per host"
run -c "$conf" hostfile --for mpich --jobs worker,ps
expect_out "127.0.0.1:1
localhost:1
ps0:1" "mpich: HOST:N, --jobs chooses the nodes"
run -c "$conf" hostfile --for horovod --nproc-per-node 3
expect_out "127.0.0.1 slots=6
localhost slots=3" "horovod: HOST slots=N, what horovodrun --hostfile reads (not its -H HOST:N)"
run -c "$fixtures/sparse.conf" hostfile --for openmpi
expect_status 0 "a sparse job is fine for a hostfile"
expect_out "c0 slots=1
w0 slots=1
w2 slots=1" "... every task, chief first"
# An IPv6 host: Open MPI's and DeepSpeed's forms write it bare; MPICH's
# Hydra and horovodrun (which makes HOST:N of each line) split HOST:N at
# every ':' and take no brackets, so
# no spelling of it reaches them: an error naming the host.
v6=$tmp/v6.conf
cat >"$v6" <<'CONF'
chain = ( { plugin = "static"; config = {
  jobs = { worker = ["n1:2222", "[fd00::1]:2222"]; }; }; } );
CONF
run -c "$v6" hostfile --for openmpi
expect_out "n1 slots=1
fd00::1 slots=1" "openmpi: an IPv6 host without brackets"
for form in mpich horovod; do
	run -c "$v6" hostfile --for $form
	expect_status 5 "$form: an IPv6 host is refused, not written as fd00::1:1"
	expect_err_match "hostfile for $form: host fd00::1 is an IPv6 address" "... naming the host"
	check_eq "... and nothing on stdout" "$(cat "$tmp/out")" ""
done
run -c "$conf" hostfile --for slurm
expect_status 64 "unknown hostfile form"
expect_err_match "unknown framework .slurm. \(openmpi mpich horovod deepspeed\)" "... named"
run -c "$conf" hostfile --for openmpi --task worker:0
expect_status 64 "--task does not apply to a hostfile"

# Open MPI itself reads it: 4 ranks over the 4 slots of two tasks on
# localhost, no --oversubscribe.
two=$tmp/two.conf
cat >"$two" <<'CONF'
chain = ( { plugin = "static"; config = {
  jobs = { worker = ["localhost:2223", "localhost:2224"]; }; }; } );
CONF
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
	skip "mpirun with muster's hostfile" "Open MPI (mpicc, mpirun) not installed"
	finish
fi
run -c "$two" hostfile --for openmpi --nproc-per-node 2
expect_out "localhost slots=4" "two tasks on one host: one line, slots=4"
cp "$tmp/out" "$tmp/hosts"
cat >"$tmp/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int rank, size, sum = 0, one;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	one = rank + 1;
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("size %d sum %d\n", size, sum);
	MPI_Finalize();
	return 0;
}
C
# The sanitizers belong to muster's build, not to this program's.
if ! env -u ASAN_OPTIONS mpicc -o "$tmp/hello" "$tmp/hello.c" 2>"$tmp/err"; then
	fail "mpicc builds the MPI program"
	finish
fi
root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
# Open MPI 4.1 reads the hostfile more than once, so it must be a file, not
# a pipe such as bash's <(muster hostfile ...).
status=0
OMPI_MCA_plm_rsh_agent=false OMPI_MCA_btl=self,vader timeout 120 \
	mpirun $root --hostfile "$tmp/hosts" -np 4 "$tmp/hello" >"$tmp/out" 2>"$tmp/err" || status=$?
expect_status 0 "mpirun --hostfile (muster hostfile --for openmpi) -np 4"
expect_out "size 4 sum 10" "4 ranks ran and all-reduced 1+2+3+4"
finish
