#!/bin/sh
# The interface that reaches the peers, in muster env and muster run, on
# real network stacks (namespaces and veth pairs): the worker's route to
# the master, not its default route; the master's own name at 127.0.1.1
# replaced in MASTER_ADDR; each framework's variables; the user's own
# never overridden; --no-ifname and choose_interface = false; nothing,
# and a reason at -v, when a peer does not resolve.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/net/lib.sh"
net_setup
unset GLOO_SOCKET_IFNAME NCCL_SOCKET_IFNAME TP_SOCKET_IFNAME OMPI_MCA_btl_tcp_if_include \
	OMPI_MCA_oob_tcp_if_include OMPI_MCA_btl_tcp_if_exclude OMPI_MCA_oob_tcp_if_exclude

has() { # has NAME=VALUE WHAT: the last run's stdout exports it
	if grep -F -x -q -e "export ${1%%=*}='${1#*=}'" "$tmp/out"; then pass "$2"; else
		fail "$2" "want: export ${1%%=*}='${1#*=}'"; fi
}
lacks() { # lacks NAME WHAT
	if grep -q "^export $1=" "$tmp/out"; then fail "$2" "$1 is exported"; else pass "$2"; fi
}

muster_in W worker "$tmp/hosts.W" -- -c "$tmp/cluster.conf" -v env --for pytorch --task worker:0
expect_status 0 "worker: env"
has GLOO_SOCKET_IFNAME=wa "worker: GLOO_SOCKET_IFNAME is wa, the master's route, not the default's wb"
has NCCL_SOCKET_IFNAME==wa "worker: NCCL_SOCKET_IFNAME is =wa (NCCL's exact match)"
has TP_SOCKET_IFNAME=wa "worker: TP_SOCKET_IFNAME"
has OMPI_MCA_btl_tcp_if_include=wa "worker: Open MPI's btl_tcp_if_include"
has OMPI_MCA_oob_tcp_if_include=wa "worker: Open MPI's oob_tcp_if_include"
has MASTER_ADDR=master "worker: MASTER_ADDR stays the master's name"
expect_err_match 'env: interface wa: the kernel routes master \(10\.77\.9\.1\) through wa' \
	"worker: -v says what was chosen and why"

muster_in M master "$tmp/hosts.M" -- -c "$tmp/cluster.conf" -v env --for pytorch --task master:0
expect_status 0 "master: env"
has GLOO_SOCKET_IFNAME=mv "master: GLOO_SOCKET_IFNAME is mv"
has MASTER_ADDR=10.77.1.1 "master: MASTER_ADDR is mv's address, not its name's 127.0.1.1"
has PET_MASTER_ADDR=10.77.1.1 "master: torchrun's PET_MASTER_ADDR too"
expect_err_match "the master's address is 10\\.77\\.1\\.1 \\(mv's\\), not 127\\.0\\.1\\.1, which master resolves to here" \
	"master: -v names the loopback address it replaced"

muster_in M master "$tmp/hosts.M" -- -c "$tmp/cluster.conf" env --for jax --task master:0
has NCCL_SOCKET_IFNAME==mv "jax: NCCL_SOCKET_IFNAME"
has OMPI_MCA_btl_tcp_if_include=mv "jax: Open MPI's btl_tcp_if_include"
lacks GLOO_SOCKET_IFNAME "jax: no GLOO_SOCKET_IFNAME (JAX's gloo does not read it)"
has JAX_COORDINATOR_ADDRESS=10.77.1.1:$port "jax: the coordinator at mv's address"

muster_in M master "$tmp/hosts.M" -- -c "$tmp/cluster.conf" env --for tensorflow --task master:0
lacks NCCL_SOCKET_IFNAME "tensorflow: TF_CONFIG alone"

# The user's own variables win; an Open MPI exclude rules out the include.
GLOO_SOCKET_IFNAME=wb OMPI_MCA_btl_tcp_if_exclude=lo \
	muster_in W worker "$tmp/hosts.W" -- -c "$tmp/cluster.conf" env --for pytorch --task worker:0
lacks GLOO_SOCKET_IFNAME "a GLOO_SOCKET_IFNAME the user set is left alone"
has NCCL_SOCKET_IFNAME==wa "... the others are still set"
lacks OMPI_MCA_btl_tcp_if_include "an Open MPI exclude list rules out the include"
has OMPI_MCA_oob_tcp_if_include=wa "... but not the other component's"

# Off: --no-ifname, and the configuration's choose_interface = false.
muster_in M master "$tmp/hosts.M" -- -c "$tmp/cluster.conf" env --for pytorch --task master:0 \
	--no-ifname
expect_status 0 "--no-ifname"
lacks GLOO_SOCKET_IFNAME "--no-ifname: no interface variable"
has MASTER_ADDR=master "--no-ifname: MASTER_ADDR as the cluster names it"
{ cat "$tmp/cluster.conf"; echo 'choose_interface = false;'; } >"$tmp/off.conf"
muster_in M master "$tmp/hosts.M" -- -c "$tmp/off.conf" -v env --for pytorch --task master:0
lacks GLOO_SOCKET_IFNAME "choose_interface = false: no interface variable"
expect_err_match 'no interface variable: choose_interface is false in the configuration' \
	"choose_interface = false: -v says so"

# A peer whose name does not resolve: no variable, env works as before.
printf 'hosts: files\n' >"$tmp/nsswitch.conf"
cat >"$tmp/ghost.conf" <<CONF
chain = ( { plugin = "static"; config = {
  jobs = { master = ["master:$port"]; worker = ["worker:$port", "ghost:$port"]; }; }; } );
CONF
muster_in M master "$tmp/hosts.M" "$tmp/nsswitch.conf=/etc/nsswitch.conf" -- \
	-c "$tmp/ghost.conf" -v env --for pytorch --task master:0
expect_status 0 "a peer that does not resolve: env still works"
lacks GLOO_SOCKET_IFNAME "... without an interface variable"
has MASTER_ADDR=master "... MASTER_ADDR as the cluster names it"
expect_err_match 'no interface variable: ghost: no such name' "... and -v says why"

# muster run hands them to the workers.
muster_in W worker "$tmp/hosts.W" -- -c "$tmp/cluster.conf" run --for pytorch --task worker:0 \
	-- sh -c 'echo "$GLOO_SOCKET_IFNAME $NCCL_SOCKET_IFNAME $MASTER_ADDR"'
expect_status 0 "run on the worker"
expect_out "wa =wa master" "run: the worker's process gets the interface"
muster_in M master "$tmp/hosts.M" -- -c "$tmp/cluster.conf" run --for pytorch --task master:0 \
	--nproc-per-node 2 --tee-prefix -- sh -c 'echo "$GLOO_SOCKET_IFNAME $MASTER_ADDR"'
sort "$tmp/out" >"$tmp/sorted"
check_eq "run on the master: both processes get mv and its address" "$(cat "$tmp/sorted")" \
	"[0]: mv 10.77.1.1
[1]: mv 10.77.1.1"
finish
