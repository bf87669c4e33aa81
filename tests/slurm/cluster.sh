#!/bin/sh
# `muster resolve` under a real Slurm on loopback: munged, slurmctld and
# four slurmd (-N n1..n4, each its own Port=, NodeHostname=localhost) with
# two fake GPUs each (character devices named in gres.conf), all configured
# and started here under a scratch directory and stopped by pid.
#  - srun -N4 -n4: the four tasks agree on the cluster, each finds itself,
#    under a config of the test's and under the shipped conf/muster.conf;
#  - Slurm hands a step the fake GPUs (CUDA_VISIBLE_DEVICES);
#  - srun -N4 -n8 --gres=gpu:2: Slurm's CUDA_VISIBLE_DEVICES split by
#    local rank, one GPU a task;
#  - sbatch: the batch script (no step, job-level variables) and its step.
# Skipped, with the reason, without Slurm and munge or when not root.
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

# Five ports from the pid, so that concurrent runs rarely meet, below the
# kernel's ephemeral range (from 32768: any outgoing connection may hold
# one there) and free now; the next five when they are not.
free5() {
	python3 -c '
import socket, sys
b = int(sys.argv[1])
for p in range(b, b + 5):
    s = socket.socket()
    try:
        s.bind(("0.0.0.0", p))
    except OSError:
        sys.exit(1)
    finally:
        s.close()
' "$1"
}
base=$((20000 + $$ % 2500 * 5))
tries=0
until free5 "$base"; do
	tries=$((tries + 1))
	[ $tries -lt 50 ] || bail_out "no five free ports from 20000 to 32499"
	base=$((20000 + (base - 20000 + 5) % 12500))
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
NodeName=n1 NodeHostname=localhost Port=$((base + 1)) CPUs=2 Gres=gpu:2
NodeName=n2 NodeHostname=localhost Port=$((base + 2)) CPUs=2 Gres=gpu:2
NodeName=n3 NodeHostname=localhost Port=$((base + 3)) CPUs=2 Gres=gpu:2
NodeName=n4 NodeHostname=localhost Port=$((base + 4)) CPUs=2 Gres=gpu:2
PartitionName=p Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP
EOF
printf 'AutoDetect=off\nName=gpu File=%s/dev/nvidia[0-1]\n' "$tmp" >"$tmp/gres.conf"
SLURM_CONF="$tmp/slurm.conf"
export SLURM_CONF

n=0
until [ -S "$tmp/sock/munge" ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done
[ -S "$tmp/sock/munge" ] || { sed 's/^/# /' "$tmp/log/munged.out"; bail_out "munged did not start"; }

slurmctld -D -c -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
pids="$! $pids"
for node in n1 n2 n3 n4; do
	mkdir -p "$tmp/spool/$node"
	slurmd -D -N "$node" -f "$SLURM_CONF" >"$tmp/log/slurmd.$node.out" 2>&1 &
	pids="$! $pids"
done

# Up to 60 s for the four nodes to come up idle.
n=0
until [ "$(sinfo -h -o '%T %D' 2>/dev/null)" = "idle 4" ] || [ $n -ge 120 ]; do
	sleep 0.5
	n=$((n + 1))
done
if [ "$(sinfo -h -o '%T %D' 2>/dev/null)" != "idle 4" ]; then
	sinfo 2>&1 | sed 's/^/# /'
	tail -n 20 "$tmp"/log/*.log | sed 's/^/# /'
	bail_out "the four slurmd did not come up"
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
finish
