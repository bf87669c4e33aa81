#!/bin/sh
# `muster resolve`, `muster env` and `muster run` under a real Slurm on
# loopback: munged, slurmctld and six slurmd (-N n9, n10, n1..n4, each its
# own Port=, NodeHostname=localhost) with two fake GPUs each (character
# devices named in gres.conf), all configured and started here under a
# scratch directory and stopped by pid.
#  - srun -N4 -n4: the four tasks agree on the cluster, each finds itself,
#    under a config of the test's and under the shipped conf/muster.conf
#    (also with --mpi=pmi2, whose tasks are MPI ranks too);
#  - Slurm hands a step the fake GPUs (CUDA_VISIBLE_DEVICES);
#  - srun -N4 -n8 --gres=gpu:2: Slurm's CUDA_VISIBLE_DEVICES split by
#    local rank, one GPU a task;
#  - sbatch: the batch script (no step, job-level variables) and its step;
#  - steps of several shapes (-N2 -n4, cyclic, -n5 over 3 nodes, plane,
#    and partition q of n9, n10 and n1, whose node list does not sort as
#    strings: Slurm 22.05 writes n[1,9-10], n10 after n9): each
#    task's `muster env --for pytorch` and `--for jax` give what Lightning
#    and JAX compute from its own SLURM_* variables (peers.py), and one
#    master port;
#  - a real 2-node x 2-process PyTorch gloo job: `muster run --for pytorch
#    --nproc-per-node 2` inside `srun -N2 --ntasks-per-node=1` on n9 and
#    n10, its workers checking their ranks and master and all-reducing
#    (worker.py).
# The nodes' names must resolve (MASTER_ADDR is one): the test runs in a
# mount namespace of its own whose /etc/hosts names them all 127.0.0.1, and
# so do the daemons and tasks it starts.  Skipped, with the reason,
# without Slurm and munge or when not root.
if [ -z "${MUSTER_SLURM_NS:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 &&
	unshare --mount true 2>/dev/null; then
	MUSTER_SLURM_NS=1 exec unshare --mount --propagation private sh -c '
		h=$(mktemp) && { cat /etc/hosts; echo; echo "127.0.0.1 n1 n2 n3 n4 n9 n10"; } >"$h" &&
		mount --bind "$h" /etc/hosts
		rm -f "$h"
		exec sh "$0"' "$0"
fi
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/slurm/lib.sh"

for tool in slurmctld slurmd munged srun sbatch sinfo; do
	command -v "$tool" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin"
	command -v "$tool" >/dev/null 2>&1 ||
		skip_all "$tool is not installed (Debian: slurmctld slurmd slurm-client munge)"
done
[ "$(id -u)" = 0 ] || skip_all "slurmd must run as root to start tasks"

pids=""
cleanup() {
	for pid in $pids; do
		kill "$pid" 2>/dev/null
	done
	for pid in $pids; do
		# Up to 10 s each, then for good.
		n=0
		while kill -0 "$pid" 2>/dev/null && [ $n -lt 100 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		kill -9 "$pid" 2>/dev/null
	done
}

# munged wants its socket's directories searchable by all, its key private.
chmod 755 "$tmp"
mkdir -p "$tmp/key" "$tmp/sock" "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/dev"
chmod 700 "$tmp/key"
chmod 755 "$tmp/sock"
dd if=/dev/urandom of="$tmp/key/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$tmp/key/munge.key"
munged -F --socket="$tmp/sock/munge" --key-file="$tmp/key/munge.key" \
	--pid-file="$tmp/sock/pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/key/seed" \
	>"$tmp/log/munged.out" 2>&1 &
pids="$!"

mknod "$tmp/dev/nvidia0" c 1 3 && mknod "$tmp/dev/nvidia1" c 1 3 ||
	skip_all "cannot make character devices under $tmp (mounted nodev?)"

# Seven ports from the pid, so that concurrent runs rarely meet, below the
# kernel's ephemeral range (from 32768: any outgoing connection may hold
# one there) and free now; the next seven when they are not.
free7() {
	python3 -c '
import socket, sys
b = int(sys.argv[1])
for p in range(b, b + 7):
    s = socket.socket()
    try:
        s.bind(("0.0.0.0", p))
    except OSError:
        sys.exit(1)
    finally:
        s.close()
' "$1"
}
base=$((20000 + $$ % 1750 * 7))
tries=0
until free7 "$base"; do
	tries=$((tries + 1))
	[ $tries -lt 50 ] || bail_out "no seven free ports from 20000 to 32249"
	base=$((20000 + (base - 20000 + 7) % 12250))
done
cat >"$tmp/slurm.conf" <<EOF
ClusterName=muster
SlurmctldHost=localhost
SlurmctldPort=$base
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/sock/munge
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/%n
TmpFS=$tmp/spool/%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.%n.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
GresTypes=gpu
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=n9 NodeHostname=localhost Port=$((base + 5)) CPUs=2 Gres=gpu:2
NodeName=n10 NodeHostname=localhost Port=$((base + 6)) CPUs=2 Gres=gpu:2
NodeName=n1 NodeHostname=localhost Port=$((base + 1)) CPUs=2 Gres=gpu:2
NodeName=n2 NodeHostname=localhost Port=$((base + 2)) CPUs=2 Gres=gpu:2
NodeName=n3 NodeHostname=localhost Port=$((base + 3)) CPUs=2 Gres=gpu:2
NodeName=n4 NodeHostname=localhost Port=$((base + 4)) CPUs=2 Gres=gpu:2
PartitionName=p Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP
PartitionName=q Nodes=n9,n10,n1 MaxTime=INFINITE State=UP
EOF
printf 'AutoDetect=off\nName=gpu File=%s/dev/nvidia[0-1]\n' "$tmp" >"$tmp/gres.conf"
SLURM_CONF="$tmp/slurm.conf"
export SLURM_CONF

n=0
until [ -S "$tmp/sock/munge" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
[ -S "$tmp/sock/munge" ] || { sed 's/^/# /' "$tmp/log/munged.out"; bail_out "munged did not start"; }

slurmctld -D -c -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
pids="$! $pids"
for node in n1 n2 n3 n4 n9 n10; do
	mkdir -p "$tmp/spool/$node"
	slurmd -D -N "$node" -f "$SLURM_CONF" >"$tmp/log/slurmd.$node.out" 2>&1 &
	pids="$! $pids"
done

# Up to 60 s for the six nodes to come up idle (n1 is in both partitions).
idle() {
	sinfo -h -N -o '%N %t' 2>/dev/null | sort -u | grep -c ' idle$'
}
n=0
until [ "$(idle)" = 6 ] || [ $n -ge 120 ]; do
	sleep 0.5
	n=$((n + 1))
done
if [ "$(idle)" != 6 ]; then
	sinfo 2>&1 | sed 's/^/# /'
	tail -n 20 "$tmp"/log/*.log | sed 's/^/# /'
	bail_out "the six slurmd did not come up"
fi

cfg=$(conf real '')
# agree NAME TASKS WANT_CLUSTER: each task's output (task.N) has the same
# cluster, WANT_CLUSTER, and its own task at its rank.
agree() {
	cat >"$tmp/agree.py" <<'EOF'
import json, sys
tmp, tasks, want = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
ok = True
for rank in range(tasks):
    text = open("%s/task.%d" % (tmp, rank)).read()
    try:
        got = json.loads(text)
    except ValueError:
        print("task %d printed: %r" % (rank, text)); ok = False; continue
    own = got.get("task")
    if {k: v for k, v in got.items() if k != "task"} != want or own != {"type": "worker", "index": rank}:
        print("task %d: %s" % (rank, text.strip())); ok = False
sys.exit(0 if ok else 1)
EOF
	if python3 "$tmp/agree.py" "$tmp" "$2" "$3" >"$tmp/agree" 2>&1; then
		pass "$1"
	else
		fail "$1" "$(cat "$tmp/agree")" "$(for f in "$tmp"/err.*; do sed "s|^|${f##*/}: |" "$f"; done)"
	fi
}

# run_step CONF SRUN_ARGS...: `srun SRUN_ARGS muster -c CONF resolve`, each
# task's output in task.N and err.N.
run_step() {
	step_cfg=$1
	shift
	rc=0
	rm -f "$tmp"/task.* "$tmp"/err.*
	timeout 120 srun -o "$tmp/task.%t" -e "$tmp/err.%t" "$@" "$MUSTER_BIN" -c "$step_cfg" \
		resolve >"$tmp/srun.out" 2>&1 || rc=$?
	check_eq "srun $* muster -c ${step_cfg##*/} exits 0" "$rc" 0
}

four='{"cluster":{"worker":["n1:8888","n2:8888","n3:8888","n4:8888"]},"rpc_layer":"grpc"}'
run_step "$cfg" -N4 -n4
agree "srun -N4 -n4: four tasks, one cluster, each its own task" 4 "$four"
# The shipped default chain, no configuration of the test's own: inside
# srun it is the job's cluster, not the localhost one.
run_step "$MUSTER_TEST_SRCDIR/conf/muster.conf" -N4 -n4
agree "srun -N4 -n4 with the shipped muster.conf: the job's cluster" 4 "$four"
# Its mpi entry comes first (an mpirun rank inside an allocation carries
# the daemons' SLURM_*), and leaves an srun task that is an MPI rank too
# to the slurm entry.
run_step "$MUSTER_TEST_SRCDIR/conf/muster.conf" -N4 -n4 --mpi=pmi2
agree "srun --mpi=pmi2 with the shipped muster.conf: the slurm entry's answer" 4 "$four"

# Slurm takes GRES on fake character devices and hands a step its GPUs.
gpus=$(timeout 60 srun -N1 -n1 --gres=gpu:2 printenv CUDA_VISIBLE_DEVICES 2>&1)
check_eq "srun --gres=gpu:2 on fake devices: CUDA_VISIBLE_DEVICES" "$gpus" "0,1"

run_step "$cfg" -N4 -n8 --gres=gpu:2
agree "srun -N4 -n8 --gres=gpu:2: two tasks a node, a GPU each by local rank" 8 \
	'{"cluster":{"worker":["n1:8888","n1:8889","n2:8888","n2:8889","n3:8888","n3:8889","n4:8888","n4:8889"]},"rpc_layer":"grpc","accelerators":{"worker":{"0":{"GPU":1},"1":{"GPU":1},"2":{"GPU":1},"3":{"GPU":1},"4":{"GPU":1},"5":{"GPU":1},"6":{"GPU":1},"7":{"GPU":1}}},"accelerator_ids":{"worker":{"0":[0],"1":[1],"2":[0],"3":[1],"4":[0],"5":[1],"6":[0],"7":[1]}}}'

# sbatch: the script itself (job-level variables), then a step of it.
cat >"$tmp/job.sh" <<EOF
#!/bin/sh
"$MUSTER_BIN" -c "$cfg" resolve >"$tmp/batch.json" 2>"$tmp/batch.err"
echo \$? >"$tmp/batch.rc"
srun -o "$tmp/task.%t" -e "$tmp/err.%t" "$MUSTER_BIN" -c "$cfg" resolve
EOF
rm -f "$tmp"/task.* "$tmp"/err.*
rc=0
timeout 120 sbatch --wait -N2 -n2 -o "$tmp/sbatch.out" "$tmp/job.sh" >/dev/null 2>&1 || rc=$?
check_eq "sbatch --wait exits 0" "$rc" 0
cp "$tmp/batch.json" "$tmp/out" 2>/dev/null
cp "$tmp/batch.err" "$tmp/err" 2>/dev/null
out=$(cat "$tmp/out" 2>/dev/null)
err=$(cat "$tmp/err" 2>/dev/null)
# muster's own status in the script, not sbatch's (its last command's).
rc=$(cat "$tmp/batch.rc" 2>/dev/null || echo "none recorded")
expect_result "the batch script: job-level variables, task 0" 0 \
	'{"cluster":{"worker":["n1:8888","n2:8888"]},"task":{"type":"worker","index":0},"rpc_layer":"grpc"}'
agree "the batch script's step" 2 '{"cluster":{"worker":["n1:8888","n2:8888"]},"rpc_layer":"grpc"}'
# --- Ranks as Lightning and JAX compute them ------------------------------
# ranks NAME SRUN_ARGS...: every task of the step runs `muster env --for
# pytorch` and `--for jax` and peers.py under its own variables; each
# task's numbers must be the peers', and its master port the step's one.
cat >"$tmp/ranks.sh" <<EOF
#!/bin/sh
t=\$SLURM_PROCID
"$MUSTER_BIN" -c "$cfg" env --for pytorch --format dotenv >"$tmp/torch.\$t" 2>"$tmp/terr.\$t"
"$MUSTER_BIN" -c "$cfg" env --for jax --format dotenv >"$tmp/jax.\$t" 2>"$tmp/jerr.\$t"
/usr/bin/python3 "$MUSTER_TEST_SRCDIR/tests/slurm/peers.py" pytorch >"$tmp/peers.pytorch.\$t" 2>&1
/usr/bin/python3 "$MUSTER_TEST_SRCDIR/tests/slurm/peers.py" jax >"$tmp/peers.jax.\$t" 2>&1
env | grep '^SLURM' | sort >"$tmp/vars.\$t"
EOF
chmod +x "$tmp/ranks.sh"
ranks() {
	name=$1
	shift
	rm -f "$tmp"/torch.* "$tmp"/jax.* "$tmp"/peers.* "$tmp"/vars.*
	rc=0
	timeout 120 srun "$@" "$tmp/ranks.sh" >"$tmp/srun.out" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		fail "$name: srun $* exits $rc" "$(cat "$tmp/srun.out")"
		return
	fi
	tasks=$(sed -n 's/^SLURM_NTASKS=//p' "$tmp/vars.0")
	bad= ports=
	for t in $(seq 0 $((tasks - 1))); do
		for fw in pytorch jax; do
			file=$tmp/torch.$t
			[ $fw = pytorch ] || file=$tmp/jax.$t
			want=$(cat "$tmp/peers.$fw.$t")
			got=$(LOCAL_RANK=${want##*=} launch_line $fw "$file" 2>&1)
			[ "$got" = "$want" ] ||
				bad="$bad
task $t --for $fw: got  $got
task $t --for $fw: want $want ($(tr '\n' ' ' <"$tmp/vars.$t"))"
		done
		ports="$ports $(sed -n 's/^MASTER_PORT=//p' "$tmp/torch.$t")"
		ports="$ports $(sed -n 's/^JAX_COORDINATOR_ADDRESS=.*://p' "$tmp/jax.$t")"
	done
	if [ -z "$bad" ]; then
		pass "$name: each of the $tasks tasks as Lightning and JAX number it"
	else
		fail "$name" "$bad" "$(cat "$tmp"/terr.* "$tmp"/jerr.*)"
	fi
	# shellcheck disable=SC2086
	check_eq "$name: one master port, from the job id" "$(printf '%s\n' $ports | sort -u | wc -l)" 1
}
ranks "srun -N2 -n4 (block)" -N2 -n4
ranks "srun -N2 -n4 --distribution=cyclic" -N2 -n4 --distribution=cyclic
ranks "srun -N3 -n5 (2, 2 and 1 tasks)" -N3 -n5
ranks "srun -N3 -n5 --distribution=cyclic" -N3 -n5 --distribution=cyclic
ranks "srun -N3 -n5 --distribution=plane=2" -N3 -n5 --distribution=plane=2
ranks "srun -p q -N3 -n5: nodes n1, n9, n10 in Slurm's order" -p q -N3 -n5
list=$(sed -n 's/^SLURM_STEP_NODELIST=//p' "$tmp/vars.0")
in_order=$(scontrol show hostnames "$list" | tr '\n' ' ' | sed 's/ $//')
if [ "$in_order" != "$(scontrol show hostnames "$list" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')" ]; then
	pass "partition q's step list $list ($in_order) is not in string order"
else
	fail "partition q's step list $list ($in_order) is not in string order"
fi
ranks "srun -p q -N3 -n6 --distribution=cyclic" -p q -N3 -n6 --distribution=cyclic

# --- A real PyTorch job: muster run inside srun ----------------------------
py=/usr/bin/python3
if ! getent hosts n1 >/dev/null 2>&1; then
	skip "muster run inside srun: a gloo job" "the node names do not resolve (no mount namespace)"
elif ! "$py" -c 'import torch.distributed' 2>/dev/null; then
	skip "muster run inside srun: a gloo job" "python3-torch is not installed for $py"
else
	rm -f "$tmp"/run.* "$tmp"/runerr.*
	rc=0
	# n9 and n10: a string sort would make n10 the master.
	GLOO_SOCKET_IFNAME=lo WANT_MASTER=n9 timeout 300 srun -p q -w n9,n10 -N2 \
		--ntasks-per-node=1 -o "$tmp/run.%t" \
		-e "$tmp/runerr.%t" "$MUSTER_BIN" -c "$cfg" run --for pytorch --nproc-per-node 2 \
		-- "$py" "$MUSTER_TEST_SRCDIR/tests/slurm/worker.py" >"$tmp/srun.out" 2>&1 || rc=$?
	got=$(cat "$tmp"/run.* 2>/dev/null |
		grep -o 'rank [0-9]* of [0-9]* local [0-9]* node [0-9]* sum [0-9]*' | sort)
	want="rank 0 of 4 local 0 node 0 sum 10
rank 1 of 4 local 1 node 0 sum 10
rank 2 of 4 local 0 node 1 sum 10
rank 3 of 4 local 1 node 1 sum 10"
	if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then
		pass "muster run --nproc-per-node 2 in srun -N2 on n9, n10: 4 gloo workers, their own ranks and master, all_reduce 10"
	else
		fail "muster run --nproc-per-node 2 in srun -N2 on n9, n10: exit $rc" "$got" \
			"$(cat "$tmp/srun.out" "$tmp"/run.* "$tmp"/runerr.* 2>/dev/null)"
	fi
fi
finish
