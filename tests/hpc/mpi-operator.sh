#!/bin/sh
# MPI Operator v2's launcher (and Kubeflow Trainer v2's MPI runtime) under
# a real Open MPI, through the shipped chain.  The launcher "pod" has the
# environment the controller gives it and its host file at
# /etc/mpi/hostfile (a mount namespace whose /etc is an overlay); there
# `muster resolve`, `hostfile` and `env` answer from the host file, and the
# launcher's own `mpirun` (host file from OMPI_MCA_orte_default_hostfile,
# as the operator means it) starts the ranks in the worker "pods": each a
# UTS namespace named as the pod, with a worker's environment, reached
# through an rsh agent that stands in for ssh.  Every rank's `muster
# resolve` (the mpi entry: PMIx) must give the launcher's cluster, its own
# rank as its task, on the host the launcher put that rank on.
. "${MUSTER_TEST_SRCDIR:?}/tests/hpc/lib.sh"
require_plugin mpi
require_plugin platforms
mpirun=$(command -v mpirun) || skip_all "mpirun not found (install openmpi-bin)"
"$mpirun" --version 2>/dev/null | grep -q 'Open MPI' || skip_all "$mpirun is not Open MPI's"
unshare -u -m true 2>/dev/null || skip_all "no UTS and mount namespaces here (unshare, as root)"
mkdir -p "$tmp/probe/up" "$tmp/probe/work"
unshare -m sh -c "mount -t overlay overlay \
	-o lowerdir=/etc,upperdir=$tmp/probe/up,workdir=$tmp/probe/work /etc" 2>/dev/null ||
	skip_all "no overlay of /etc in a mount namespace here"
shipped=$MUSTER_TEST_SRCDIR/conf/muster.conf

# The rsh agent mpirun uses in place of ssh: `ssh [-o OPT]... HOST CMD...`
# runs CMD in the pod HOST names (host name its first label) with a
# worker pod's environment, as sshd would give it.
cat >"$tmp/ssh" <<'EOS'
#!/bin/sh
while [ $# -gt 0 ]; do case $1 in -o) shift 2 ;; -*) shift ;; *) break ;; esac; done
host=$1
shift
exec unshare -u sh -c 'hostname "${0%%.*}" || exit 70
	exec env -i PATH="$PATH" HOME=/root K_MPI_JOB_ROLE=worker \
		KUBERNETES_SERVICE_HOST=10.96.0.1 KUBERNETES_SERVICE_PORT=443 \
		MUSTER_PLUGIN_PATH="$MUSTER_PLUGIN_PATH" ASAN_OPTIONS="$ASAN_OPTIONS" \
		UBSAN_OPTIONS="$UBSAN_OPTIONS" LSAN_OPTIONS="$LSAN_OPTIONS" sh -c "$*"' "$host" "$@"
EOS
# What each rank runs: its host name and `muster resolve`.
cat >"$tmp/rank.sh" <<EOS
#!/bin/sh
hostname >"$tmp/host.\$OMPI_COMM_WORLD_RANK"
"$MUSTER_BIN" -c "$shipped" resolve >"$tmp/out.\$OMPI_COMM_WORLD_RANK" 2>"$tmp/err.\$OMPI_COMM_WORLD_RANK"
echo \$? >"$tmp/rc.\$OMPI_COMM_WORLD_RANK"
EOS
chmod +x "$tmp/ssh" "$tmp/rank.sh"

# launcher NAME HOSTFILE-LINES VAR=VALUE... CMD...: CMD in the launcher
# pod NAME, /etc/mpi/hostfile holding the lines, with the launcher's
# environment (the VARs) and what the test's machine needs (loopback only,
# the rsh agent, root).
launcher() {
	name=$1
	printf '%s\n' "$2" >"$tmp/hostfile"
	shift 2
	rm -rf "$tmp/etc"
	mkdir -p "$tmp/etc/up/mpi" "$tmp/etc/work"
	cp "$tmp/hostfile" "$tmp/etc/up/mpi/hostfile"
	unshare -u -m sh -c 'hostname "$0" || exit 70
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/up,workdir=$1/work" /etc ||
			exit 70
		shift
		exec env -i "$@"' "$name" "$tmp/etc" \
		PATH="$PATH" HOME=/root MUSTER_PLUGIN_PATH="$MUSTER_PLUGIN_PATH" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-}" \
		LSAN_OPTIONS="${LSAN_OPTIONS:-}" \
		KUBERNETES_SERVICE_HOST=10.96.0.1 KUBERNETES_SERVICE_PORT=443 \
		OMPI_MCA_plm_rsh_agent="$tmp/ssh" OMPI_MCA_btl=self,tcp \
		OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo \
		OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$@"
}
# on_launcher NAME HOSTFILE-LINES VAR=VALUE... CMD...: launcher's run,
# setting rc, out and err.
on_launcher() {
	rc=0
	launcher "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	no_sanitizer_report "muster on the launcher"
}

# mpirun_ranks WHAT CLUSTER POD HOSTFILE-LINES VAR=VALUE...: the launcher
# pod POD runs `mpirun -np 4`; the 4 ranks must each answer CLUSTER with
# their own rank as task, each on the host of its task's address.
mpirun_ranks() {
	what=$1 cluster=$2 n=4
	shift 2
	rm -f "$tmp"/out.* "$tmp"/rc.* "$tmp"/host.* "$tmp"/err.*
	on_launcher "$@" timeout 120 mpirun -np $n "$tmp/rank.sh"
	check_eq "$what: mpirun -np $n exits 0" "$rc" 0
	[ "$rc" = 0 ] || printf '%s\n' "$out" "$err" | sed 's/^/# mpirun: /'
	r=0
	while [ "$r" -lt "$n" ]; do
		check_eq "$what: rank $r resolves" "$(cat "$tmp/rc.$r" 2>/dev/null)" 0
		if grep -E -q 'runtime error:|AddressSanitizer|LeakSanitizer' "$tmp/err.$r" 2>/dev/null; then
			fail "$what: rank $r: a sanitizer report" "$(cat "$tmp/err.$r")"
		fi
		got=$(cat "$tmp/out.$r" 2>/dev/null)
		check_eq "$what: rank $r sees the launcher's cluster, itself task $r" "$got" \
			"{$cluster,\"task\":{\"type\":\"worker\",\"index\":$r},\"rpc_layer\":\"grpc\"}"
		addr=$(printf '%s' "$cluster" | python3 -c 'import json, sys
print(json.loads("{" + sys.stdin.read() + "}")["cluster"]["worker"][int(sys.argv[1])])' "$r")
		check_eq "$what: rank $r runs where the launcher put task $r" \
			"$(cat "$tmp/host.$r" 2>/dev/null)" "${addr%%.*}"
		r=$((r + 1))
	done
}

# ------------------------------------------------------ MPI Operator v2
# pkg/controller/mpi_job_controller.go: Open MPI's host file of
# "<pod>.<job>.<namespace>.svc slots=<slotsPerWorker>" lines, and the
# launcher's variables.
hosts="pi-worker-0.pi.default.svc slots=2
pi-worker-1.pi.default.svc slots=2"
set -- K_MPI_JOB_ROLE=launcher OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile \
	OMPI_MCA_orte_keep_fqdn_hostnames=true OMPI_MCA_orte_set_default_slots=2 \
	"OMPI_MCA_plm_rsh_args=-o ConnectionAttempts=10"
cluster='"cluster":{"worker":["pi-worker-0.pi.default.svc:8888","pi-worker-0.pi.default.svc:8889","pi-worker-1.pi.default.svc:8888","pi-worker-1.pi.default.svc:8889"]}'
on_launcher pi-launcher "$hosts" "$@" "$MUSTER_BIN" -c "$shipped" resolve
expect "launcher: resolve gives the ranks mpirun will start, slot by slot, no own task" 0 "{$cluster}"
on_launcher pi-launcher "$hosts" "$@" "$MUSTER_BIN" -c "$shipped" hostfile --for openmpi
expect "launcher: hostfile gives Open MPI the same slots" 0 "pi-worker-0.pi.default.svc slots=2
pi-worker-1.pi.default.svc slots=2"
on_launcher pi-launcher "$hosts" "$@" "$MUSTER_BIN" -c "$shipped" env --for pytorch
expect_err "launcher: env refuses, it is no rank" 5 "own task is unknown"

mpirun_ranks "MPI Operator" "$cluster" pi-launcher "$hosts" "$@"

# The launcher runs ranks too (runLauncherAsWorker: it comes first, with
# its own slots), and workers of different slot counts.
hosts="pi-launcher.pi.default.svc slots=1
pi-worker-0.pi.default.svc slots=3"
cluster='"cluster":{"worker":["pi-launcher.pi.default.svc:8888","pi-worker-0.pi.default.svc:8888","pi-worker-0.pi.default.svc:8889","pi-worker-0.pi.default.svc:8890"]}'
on_launcher pi-launcher "$hosts" "$@" "$MUSTER_BIN" -c "$shipped" resolve
expect "runLauncherAsWorker: the launcher's slot first" 0 "{$cluster}"
mpirun_ranks "runLauncherAsWorker" "$cluster" pi-launcher "$hosts" "$@"

# ----------------------------------------------- Trainer v2 MPI runtime
# pkg/runtime/framework/plugins/mpi/mpi.go: "<trainjob>-node-0-<i>.<trainjob>
# slots=<numProcPerNode>" and no K_MPI_JOB_ROLE.
hosts="tj-node-0-0.tj slots=2
tj-node-0-1.tj slots=2"
set -- OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile OMPI_MCA_orte_keep_fqdn_hostnames=true \
	OMPI_MCA_orte_set_default_slots=2
cluster='"cluster":{"worker":["tj-node-0-0.tj:8888","tj-node-0-0.tj:8889","tj-node-0-1.tj:8888","tj-node-0-1.tj:8889"]}'
on_launcher tj-node-0-0 "$hosts" "$@" "$MUSTER_BIN" -c "$shipped" resolve
expect "Trainer MPI runtime: resolve from the host file" 0 "{$cluster}"
mpirun_ranks "Trainer MPI runtime" "$cluster" tj-node-0-0 "$hosts" "$@"
finish
