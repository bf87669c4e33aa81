#!/bin/sh
# muster doctor's checks that need no network of their own (one machine,
# localhost): the world size against the processes a scheduler started,
# this node's visible GPUs against its processes (a /proc and /dev tree
# under MUSTER_SYSROOT), two tasks at one address, and the command line.
# The network's checks run in namespaces: tests/net/doctor.sh.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
unset SLURM_STEP_NUM_TASKS SLURM_NTASKS OMPI_COMM_WORLD_SIZE PMI_SIZE MUSTER_SYSROOT \
	CUDA_VISIBLE_DEVICES http_proxy https_proxy grpc_proxy HTTP_PROXY HTTPS_PROXY GRPC_PROXY \
	MUSTER_MASTER_PORT
EX_PROBLEM=6
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

row() { # row STATUS CHECK: the table's lines for them
	awk -v s="$1" -v c="$2" '$1 == s && $2 == c' "$tmp/out"
}
expect_row() { # expect_row STATUS CHECK DETAIL-REGEX WHAT
	if row "$1" "$2" | grep -E -q -e "$3"; then pass "$4"; else
		fail "$4" "want a row: $1 $2 ... /$3/"; fi
}

# Two tasks a scheduler started on this host (processes placement).
cat >"$tmp/procs.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { worker = ["localhost:$port", "localhost:$((port + 1))"]; };
  placement = "processes"; }; } );
CONF
SLURM_NTASKS=2 run -c "$tmp/procs.conf" doctor --task worker:0
expect_status 0 "a scheduler's two tasks, one process each"
expect_row ok world-size 'as many as the scheduler started, SLURM_NTASKS' "... the world size is the scheduler's"
SLURM_NTASKS=2 run -c "$tmp/procs.conf" doctor --task worker:0 --nproc-per-node 4
expect_status $EX_PROBLEM "--nproc-per-node 4 on a scheduler's tasks"
expect_row problem world-size 'the scheduler started 2 processes \(SLURM_NTASKS\)' \
	"... the world size against the scheduler's count is a problem"
grep -q 'fix: leave --nproc-per-node out' "$tmp/out" && pass "... with its fix" ||
	fail "... with its fix"

# This node's GPUs: two NVIDIA GPUs in a /proc and /dev tree.
gpus=$tmp/gpus
for i in 0 1; do
	mkdir -p "$gpus/proc/driver/nvidia/gpus/0000:0$i:00.0" "$gpus/dev"
	printf 'Model: \t NVIDIA H100\nGPU UUID: \t GPU-0000000%d-aaaa-bbbb-cccc-dddddddddddd\nDevice Minor: \t %d\n' \
		"$i" "$i" >"$gpus/proc/driver/nvidia/gpus/0000:0$i:00.0/information"
	: >"$gpus/dev/nvidia$i"
done
cat >"$tmp/one.conf" <<CONF
chain = ( { plugin = "static"; config = { jobs = { worker = ["localhost:$port"]; }; }; } );
CONF
MUSTER_SYSROOT=$gpus run -c "$tmp/one.conf" doctor --task worker:0 --nproc-per-node 2
expect_status 0 "two GPUs, two processes"
expect_row ok devices 'one per process' "... one GPU a process"
MUSTER_SYSROOT=$gpus run -c "$tmp/one.conf" doctor --task worker:0 --nproc-per-node 4
expect_status $EX_PROBLEM "two GPUs, four processes"
expect_row problem devices '4 processes on this node, more than its visible GPUs' \
	"... more processes than GPUs is a problem"
MUSTER_SYSROOT=$gpus run -c "$tmp/one.conf" doctor --task worker:0
expect_status 0 "two GPUs, one process: a note is no problem"
expect_row note devices '1 GPU idle' "... an idle GPU is a note"
CUDA_VISIBLE_DEVICES=1 MUSTER_SYSROOT=$gpus run -c "$tmp/one.conf" doctor --task worker:0 \
	--nproc-per-node 2
expect_row problem devices '2 processes' "CUDA_VISIBLE_DEVICES counts: one GPU left for two processes"

# Two tasks at one address.
cat >"$tmp/dup.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { worker = ["localhost:$port"]; ps = ["localhost:$port"]; }; }; } );
CONF
run -c "$tmp/dup.conf" doctor --task worker:0
expect_status $EX_PROBLEM "two tasks at one address"
expect_row problem duplicates "two tasks of the cluster have this address" "... is a problem"

# JSON, and the command line.
run -c "$tmp/one.conf" doctor --task worker:0 --format json
expect_status 0 "--format json"
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["ok"] is True
assert {c["check"] for c in d["checks"]} >= {"cluster", "interface", "name", "port", "proxy",
    "world-size", "duplicates", "devices"}, d' "$tmp/out" 2>"$tmp/pyerr"; then
	pass "... one object with every check"
else
	fail "... one object with every check" "$(cat "$tmp/pyerr")"
fi
run -c "$tmp/one.conf" doctor --timeout 0
expect_status 64 "--timeout 0 is a usage error"
expect_err_match "doctor: --timeout '0': expected seconds above 0" "... naming the option"
run -c "$tmp/one.conf" doctor --format yaml
expect_status 64 "an unknown --format"
run -c "$tmp/one.conf" doctor
expect_status 5 "no own task: exit 5"
expect_err_match "name it with --task TYPE:ID" "... saying how to name it"
run -c "$tmp/one.conf" run --for pytorch --elastic --doctor -- true
expect_status 64 "run --doctor with --elastic is a usage error"
finish
