#!/bin/sh
# libvirt plugin: the answer — jobs by name glob and by metadata, natural
# order, sparse metadata indices, addresses (IPv4 preferred, IPv6 in
# brackets, network/interface/family/sources), ports, accelerators (node
# devices, mdev vGPUs, metadata, GPU fallback), self identity, master.
. "$MUSTER_TEST_SRCDIR/tests/libvirt/lib.sh"

cluster='chief 0 10.10.0.221:2223
worker 0 192.168.50.11:8470 GPU=1
worker 1 10.10.0.121:8470 GPU=1
worker 2 10.10.0.161:8470 TPU=4
worker 3 10.10.0.141:8470 GPU=2
ps 0 [fd00:10::151]:8470
ps 1 10.10.0.202:8470
ps 5 10.10.0.241:8470
rpc_layer: grpc
source: vm'

c=$(conf base "uri = \"$URI\"; $JOBS $NODMI")
run_muster "$c" resolve --format text
# chief: vm-chief by metadata (no glob matches its name), port 2223;
# worker: natural order (tf-worker-10 after tf-worker-2), tf-worker-legacy
# moved to ps 5 by its metadata; tf-worker-0's NIC is no accelerator, its
# A100 is a GPU; tf-worker-1's vGPU is classified by its parent card;
# tf-worker-10's two unknown devices count as GPUs; tf-worker-2's unknown
# device is what its metadata says (TPU 4); ps-1 has IPv6 and IPv4: IPv4.
expect "globs, metadata, natural order, accelerators" 0 "$cluster"
expect_quiet "success is quiet"
run_muster "$c" resolve
expect "JSON" 0 '{"cluster":{"chief":["10.10.0.221:2223"],"worker":["192.168.50.11:8470","10.10.0.121:8470","10.10.0.161:8470","10.10.0.141:8470"],"ps":{"0":"[fd00:10::151]:8470","1":"10.10.0.202:8470","5":"10.10.0.241:8470"}},"rpc_layer":"grpc","accelerators":{"worker":{"0":{"GPU":1},"1":{"GPU":1},"2":{"TPU":4},"3":{"GPU":2}}}}'

# TF's string order instead.
c=$(conf name "uri = \"$URI\"; jobs = { worker = \"tf-worker-*\"; }; order = \"name\"; $NODMI")
run_muster "$c" resolve --format text
expect "order = name" 0 "worker 0 192.168.50.11:8470 GPU=1
worker 1 10.10.0.121:8470 GPU=1
worker 2 10.10.0.141:8470 GPU=2
worker 3 10.10.0.161:8470 TPU=4
rpc_layer: grpc
source: vm"

# Several globs per job, port, rpc layer.
c=$(conf globs "uri = \"$URI\"; jobs = { worker = [\"tf-worker-1*\", \"db-*\"]; }; port = 2222; rpc_layer = \"grpc+verbs\"; $NODMI")
run_muster "$c" resolve --format text
# (tf-worker-2 is a worker by its metadata, whatever the globs say)
expect "glob list, port, rpc_layer" 0 "worker 0 10.10.1.5:2222
worker 1 10.10.0.121:2222 GPU=1
worker 2 10.10.0.161:2222 TPU=4
worker 3 10.10.0.141:2222 GPU=2
rpc_layer: grpc+verbs
source: vm"

# Only interfaces on one network / one interface; families.
# (jobs w and p: no domain's metadata names them)
c=$(conf net "uri = \"$URI\"; jobs = { w = \"tf-worker-0\"; p = \"tf-ps-1\"; }; network = \"train\"; $NODMI")
run_muster "$c" resolve --format text
expect "network = train" 0 "w 0 10.10.0.102:8470 GPU=1
p 0 10.10.0.202:8470
rpc_layer: grpc
source: vm"
c=$(conf iface "uri = \"$URI\"; jobs = { w = \"tf-worker-0\"; }; interface = \"52:54:00:10:00:02\"; $NODMI")
run_muster "$c" resolve --format text
expect "interface by MAC" 0 "w 0 10.10.0.102:8470 GPU=1
rpc_layer: grpc
source: vm"
c=$(conf ifname "uri = \"$URI\"; jobs = { w = \"tf-worker-0\"; }; interface = \"testnet1\"; $NODMI")
run_muster "$c" resolve --format text
expect "interface by name" 0 "w 0 10.10.0.102:8470 GPU=1
rpc_layer: grpc
source: vm"
c=$(conf v6 "uri = \"$URI\"; jobs = { p = \"tf-ps-*\"; }; family = \"ipv6\"; $NODMI")
run_muster "$c" resolve --format text
expect "family = ipv6" 0 "p 0 [fd00:10::151]:8470
p 1 [fd00:10::165]:8470
rpc_layer: grpc
source: vm"
c=$(conf v4 "uri = \"$URI\"; jobs = { ps = \"tf-ps-*\"; }; family = \"ipv4\"; $NODMI")
run_muster "$c" resolve
expect_err "family = ipv4: an IPv6-only domain has no address" $EX_TRYAGAIN \
	"libvirt(vm): tryagain: domain tf-ps-0 is running but has no address yet (lease: no IPv4 address; agent: operation forbidden: read only access prevents virDomainInterfaceAddresses; arp: no IPv4 address)"
expect_quiet "tryagain is quiet"

# Sources: the order is configurable; the agent is refused read-only and
# asked only once per resolve.
c=$(conf arp "uri = \"$URI\"; jobs = { w = \"tf-worker-1\"; }; sources = [\"arp\", \"lease\"]; $NODMI")
run_muster "$c" -vv resolve --format text
expect_err "sources = arp, lease" 0 "debug: libvirt(vm): domain tf-worker-1: 10.10.0.121 from arp"
c=$(conf agent "uri = \"$URI\"; jobs = { worker = \"tf-worker-*\"; }; sources = [\"agent\", \"lease\"]; $NODMI")
run_muster "$c" -vv resolve --format text
expect_err "the agent source is refused read-only, then skipped" 0 \
	"debug: libvirt(vm): the agent source is not asked: operation forbidden: read only access prevents virDomainInterfaceAddresses" \
	"debug: libvirt(vm): domain tf-worker-0: 192.168.50.11 from lease"
check_eq "agent refused once" "$(grep -c 'agent source is not asked' "$tmp/err")" 1
c=$(conf agentonly "uri = \"$URI\"; jobs = { w = \"tf-worker-1\"; }; sources = \"agent\"; $NODMI")
run_muster "$c" resolve
expect_err "agent only" $EX_TRYAGAIN \
	"domain tf-worker-1 is running but has no address yet (agent: operation forbidden: read only access prevents virDomainInterfaceAddresses)"

# Accelerator table: vendor IDs per kind.
c=$(conf acc "uri = \"$URI\"; jobs = { w = \"tf-worker-0\"; }; accelerators = { NIC = \"0x15b3\"; GPU = [\"10de\"]; }; $NODMI")
run_muster "$c" accelerators --task w:0
expect "accelerators table" 0 '{"GPU":1,"NIC":1}'
c=$(conf noacc "uri = \"$URI\"; jobs = { w = \"tf-worker-1\"; }; accelerators = { TPU = \"0x1ae0\"; }; $NODMI")
run_muster "$c" accelerators --task w:0
expect "a display-class device without a listed vendor is a GPU" 0 '{"GPU":1}'

# Self identity: explicit, DMI product UUID (any case), host name.
c=$(conf self "uri = \"$URI\"; $JOBS self_domain = \"tf-ps-1\"; $NODMI")
run_muster "$c" master
expect "self_domain by name" 0 "grpc://10.10.0.202:8470"
c=$(conf selfu "uri = \"$URI\"; $JOBS self_domain = \"6c3a9a10-0000-4000-8000-0000000000c0\"; $NODMI")
run_muster "$c" master
expect "self_domain by UUID" 0 "grpc://10.10.0.221:2223"
printf '6C3A9A10-0000-4000-8000-000000000010\n' >"$tmp/dmi"
c=$(conf dmi "uri = \"$URI\"; $JOBS dmi_uuid_path = \"$tmp/dmi\";")
run_muster "$c" resolve
expect "DMI product UUID" 0 '{"cluster":{"chief":["10.10.0.221:2223"],"worker":["192.168.50.11:8470","10.10.0.121:8470","10.10.0.161:8470","10.10.0.141:8470"],"ps":{"0":"[fd00:10::151]:8470","1":"10.10.0.202:8470","5":"10.10.0.241:8470"}},"task":{"type":"worker","index":3},"rpc_layer":"grpc","accelerators":{"worker":{"0":{"GPU":1},"1":{"GPU":1},"2":{"TPU":4},"3":{"GPU":2}}}}'
run_muster "$c" accelerators
expect "own accelerators" 0 '{"GPU":2}'
run_muster "$c" master --task ps:5 --rpc-layer grpc+verbs
expect "master of a given task and rpc layer" 0 "grpc+verbs://10.10.0.241:8470"
c=$(conf norpc "uri = \"$URI\"; $JOBS self_domain = \"vm-chief\"; rpc_layer = \"\"; $NODMI")
run_muster "$c" master
expect "rpc_layer \"\": no prefix" 0 "10.10.0.221:2223"
c=$(conf noself "uri = \"$URI\"; $JOBS $NODMI")
run_muster "$c" master
expect "unknown own task: empty master" 0 ""
# The host name: a node whose domain is named as this machine.
host=$(hostname)
cat >"$tmp/self.xml" <<EOX
<node>
  <network><name>n</name><bridge name="virbr20"/>
    <ip address="10.20.0.1" netmask="255.255.0.0"><dhcp><range start="10.20.0.10" end="10.20.9.9"/></dhcp></ip></network>
  <domain type="test"><name>peer</name><memory>1024</memory><os><type>hvm</type></os>
    <metadata><task xmlns="https://muster.dev/xmlns/libvirt/1" job="worker"/></metadata>
    <devices><interface type="network"><mac address="52:54:00:60:00:01"/><source network="n"/></interface></devices></domain>
  <domain type="test"><name>$host</name><memory>1024</memory><os><type>hvm</type></os>
    <metadata><task xmlns="https://muster.dev/xmlns/libvirt/1" job="worker"/></metadata>
    <devices><interface type="network"><mac address="52:54:00:60:00:02"/><source network="n"/></interface></devices></domain>
</node>
EOX
c=$(conf host "uri = \"test://$tmp/self.xml\"; $NODMI")
run_muster "$c" master
# peer is id 1 (10.20.0.11), this host's domain id 2 (10.20.0.31)
if [ "$host" != peer ]; then
	expect "self by host name; metadata-only membership (default namespace)" 0 \
		"grpc://10.20.0.31:8470"
fi

finish
