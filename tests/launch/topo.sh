#!/bin/sh
# muster topo on sysfs trees shaped like real machines' (topo-tree.sh):
# NUMA nodes, their CPUs and packages, the nearest NIC by PCI path, NCCL's
# link levels; the table fitted to the width; bad sysfs text; MIG names
# without NVML; and, where NVML and nvidia-smi are present, the driver's
# /proc read without NVML against NVML's own answers.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
. "$MUSTER_TEST_SRCDIR/tests/launch/topo-tree.sh"
unset CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES MUSTER_SYSROOT COLUMNS
require_tools python3

# devices: one line per device of the JSON on stdout: id bus numa cpus
# socket_cpus nic nic_link links.
devices() {
	python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))
for d in t["devices"]:
    print(" ".join(str(d[k]) if not isinstance(d[k], list) else ",".join(map(str, d[k]))
                   for k in ("id", "pci_bus_id", "numa_node", "cpus", "socket_cpus", "nic",
                             "nic_link", "links")))
print("nvlink_checked", t["nvlink_checked"])' "$tmp/out"
}

m=$tmp/two-node
two_node_machine "$m"
run topo --sysroot "$m" --format json
expect_status 0 "topo --format json on a machine of two NUMA nodes"
check_eq "per GPU: bus id, node, its CPUs, the package's, the nearest NIC and NCCL's levels" \
	"$(devices)" "0 0000:03:00.0 0 0 0-1 ib0 PIX X,PXB,SYS,SYS
1 0000:08:00.0 0 0 0-1 ib0 PXB PXB,X,SYS,SYS
2 0000:83:00.0 1 1 0-1 ib1 PIX SYS,SYS,X,PHB
3 0000:87:00.0 1 1 0-1 ib1 PHB SYS,SYS,PHB,X
nvlink_checked False"
check_eq "... UUIDs from the driver's information files" \
	"$(python3 -c 'import json,sys; print(" ".join(d["uuid"][:12] for d in json.load(open(sys.argv[1]))["devices"]))' "$tmp/out")" \
	"GPU-00000000 GPU-00000001 GPU-00000002 GPU-00000003"

COLUMNS=200 run topo --sysroot "$m"
expect_out "DEVICE  BUS ID        NUMA  CPUS  NIC        UUID
GPU0    0000:03:00.0  0     0     ib0 (PIX)  GPU-00000000-aaaa-bbbb-cccc-dddddddddddd
GPU1    0000:08:00.0  0     0     ib0 (PXB)  GPU-00000001-aaaa-bbbb-cccc-dddddddddddd
GPU2    0000:83:00.0  1     1     ib1 (PIX)  GPU-00000002-aaaa-bbbb-cccc-dddddddddddd
GPU3    0000:87:00.0  1     1     ib1 (PHB)  GPU-00000003-aaaa-bbbb-cccc-dddddddddddd

      GPU0  GPU1  GPU2  GPU3
GPU0  X     PXB   SYS   SYS
GPU1  PXB   X     SYS   SYS
GPU2  SYS   SYS   X     PHB
GPU3  SYS   SYS   PHB   X

Links, as NCCL names them:
  X    the same device
  NVL  NVLink, directly or through NVSwitches
  PIX  through one PCIe switch
  PXB  through several PCIe switches
  PHB  through a PCIe host bridge (the CPU)
  SYS  across NUMA nodes
NVLinks were not looked for (no NVML, or --sysroot):
NVIDIA GPUs show their PCIe level." "the table: a row per device, the link matrix, the legend"
COLUMNS=64 run topo --sysroot "$m"
expect_out_match '^GPU0    0000:03:00.0  0     0     ib0 \(PIX\)  GPU-00000000-aaa\.\.\.$' \
	"COLUMNS=64: UUIDs cut to fit"
check "... no line of the device rows is wider than 64" \
	sh -c "head -5 '$tmp/out' | awk 'length > 64 { exit 1 }'"
COLUMNS=40 run topo --sysroot "$m"
expect_out_match '^GPU3    0000:87:00.0  1     1     ib1 \(PHB\)$' "COLUMNS=40: no room for UUIDs, left out"
COLUMNS=20 run topo --sysroot "$m"
expect_out_match '^      GPU2  GPU3$' "COLUMNS=20: the matrix in blocks of the columns that fit"
check "... none of its rows wider than 20" \
	sh -c "sed -n '6,17p' '$tmp/out' | awk 'length > 20 { exit 1 }'"
# A real terminal's width, through a pseudo-terminal.
if command -v script >/dev/null 2>&1; then
	script -qec "stty cols 40; '$MUSTER_BIN' topo --sysroot '$m'" /dev/null >"$tmp/tty" 2>&1 || :
	if grep -q 'ib1 (PHB)' "$tmp/tty" && ! grep -q 'GPU-0000' "$tmp/tty"; then
		pass "on a terminal 40 columns wide, the UUIDs are left out"
	else
		fail "on a terminal 40 columns wide, the UUIDs are left out" "$(cat "$tmp/tty")"
	fi
else
	skip "on a terminal 40 columns wide, the UUIDs are left out" "script is not installed"
fi

dgx=$tmp/dgx
dgx_machine "$dgx"
run topo --sysroot "$dgx" --format json
check_eq "a DGX H100-like host: 8 GPUs (NVSwitches are not), each with its NIC on its switch" \
	"$(devices)" "0 0000:12:00.0 0 0 0 ib0 PIX X,PHB,PHB,PHB,SYS,SYS,SYS,SYS
1 0000:22:00.0 0 0 0 ib1 PIX PHB,X,PHB,PHB,SYS,SYS,SYS,SYS
2 0000:32:00.0 0 0 0 ib2 PIX PHB,PHB,X,PHB,SYS,SYS,SYS,SYS
3 0000:42:00.0 0 0 0 ib3 PIX PHB,PHB,PHB,X,SYS,SYS,SYS,SYS
4 0000:52:00.0 1 1 1 ib4 PIX SYS,SYS,SYS,SYS,X,PHB,PHB,PHB
5 0000:62:00.0 1 1 1 ib5 PIX SYS,SYS,SYS,SYS,PHB,X,PHB,PHB
6 0000:72:00.0 1 1 1 ib6 PIX SYS,SYS,SYS,SYS,PHB,PHB,X,PHB
7 0000:82:00.0 1 1 1 ib7 PIX SYS,SYS,SYS,SYS,PHB,PHB,PHB,X
nvlink_checked False"

MUSTER_SYSROOT=$m CUDA_VISIBLE_DEVICES=3,GPU-00000001 run topo --format json
check_eq "MUSTER_SYSROOT; CUDA_VISIBLE_DEVICES keeps GPU3 and GPU1, in its order" "$(devices)" \
	"3 0000:87:00.0 1 1 0-1 ib1 PHB X,SYS
1 0000:08:00.0 0 0 0-1 ib0 PXB SYS,X
nvlink_checked False"

# A machine whose sysfs tells nothing of NUMA or PCI paths: only /proc.
bare=$tmp/bare
nvidia_gpu "$bare" 0000:07:00.0 0
nvidia_gpu "$bare" 0000:0f:00.0 1
put "$bare" sys/bus/pci/devices/0000:07:00.0/class 0x030200
run topo --sysroot "$bare" --format json
check_eq "no NUMA or PCI path in sysfs: unknown (null), not guessed" "$(devices)" \
	"0 0000:07:00.0 None None None None None X,None
1 0000:0f:00.0 None None None None None None,X
nvlink_checked False"
COLUMNS=200 run topo --sysroot "$bare"
expect_out_match '^GPU1    0000:0f:00.0  -     -     -    GPU-00000001-' "... '-' in the table"

# Without NUMA nodes the device's own local_cpulist gives its CPUs.
flat=$tmp/flat
one_node_machine "$flat" "0 1"
rm -r "$flat/sys/devices/system/node"
for b in 0000:03:00.0 0000:04:00.0; do
	put "$flat" "sys/bus/pci/devices/$b/numa_node" -1
	put "$flat" "sys/bus/pci/devices/$b/local_cpulist" 0-1
done
run topo --sysroot "$flat" --format json
check_eq "numa_node -1 and no node: local_cpulist; no package without nodes" "$(devices)" \
	"0 0000:03:00.0 None 0-1 None None None X,PIX
1 0000:04:00.0 None 0-1 None None None PIX,X
nvlink_checked False"

# Hostile sysfs text: nothing is believed that does not parse.
bad=$tmp/bad
two_node_machine "$bad"
put "$bad" sys/devices/system/node/node0/cpulist "0-"
put "$bad" sys/devices/system/node/node1/cpulist "1-99999999"
put "$bad" sys/devices/pci0000:80/0000:80:02.0/0000:85:00.0/0000:86:00.0/0000:87:00.0/numa_node "1x"
put "$bad" sys/devices/pci0000:80/0000:80:02.0/0000:85:00.0/0000:86:00.0/0000:87:00.0/local_cpulist "0,,1"
printf 'GPU UUID: GPU-\001\033[31m\n' >"$bad/proc/driver/nvidia/gpus/0000:03:00.0/information"
# (A device of no known node is on a CPU of its own to NCCL: SYS.)
run topo --sysroot "$bad" --format json
check_eq "malformed CPU lists, node numbers and UUID text: unknown, never a crash" "$(devices)" \
	"0 0000:03:00.0 0 None None ib0 PIX X,PXB,SYS,SYS
1 0000:08:00.0 0 None None ib0 PXB PXB,X,SYS,SYS
2 0000:83:00.0 1 None None ib1 PIX SYS,SYS,X,SYS
3 0000:87:00.0 None None None ib1 SYS SYS,SYS,SYS,X
nvlink_checked False"
COLUMNS=200 run topo --sysroot "$bad"
expect_out_match '^GPU0    0000:03:00.0  0     -     ib0 \(PIX\)  GPU-\?\?\[31m$' \
	"... control bytes from /proc are not written to the terminal"

# AMD GPUs (KFD's location_id and domain) and accel-class devices (their
# device link) have bus ids too.
amd=$tmp/amd
put "$amd" sys/class/kfd/kfd/topology/nodes/1/properties "simd_count 1216
unique_id 1001
location_id $((0x1b << 8 | 0x08))
domain 1"
put "$amd" sys/devices/pci0001:00/0001:00:01.0/0001:1b:01.0/numa_node 0
mkdir -p "$amd/sys/class/accel/accel0"
ln -s ../../../devices/pci0000:00/0000:00:02.0/0000:2a:00.0 "$amd/sys/class/accel/accel0/device"
put "$amd" sys/devices/pci0000:00/0000:00:02.0/0000:2a:00.0/vendor 0x1da3
run topo --sysroot "$amd" --format json
check_eq "AMD's bus id from KFD, an accel-class device's from its link" \
	"$(python3 -c 'import json,sys; print(" ".join(d["kind"] + "=" + d["pci_bus_id"] for d in json.load(open(sys.argv[1]))["devices"]))' "$tmp/out")" \
	"GPU=0001:1b:01.0 HPU=0000:2a:00.0"

none=$tmp/none
mkdir -p "$none/sys" "$none/proc"
run topo --sysroot "$none"
expect_status 0 "no accelerators"
expect_err_match "topo: no accelerators on this machine" "... said on stderr"
run topo --sysroot "$none" --format json
expect_json '{"devices":[],"nvlink_checked":false}' "... and in JSON, an empty list"
run topo --format yaml
expect_status 64 "an unknown --format"
run topo extra
expect_status 64 "an operand"

# MIG devices have no name outside NVML: a CUDA_VISIBLE_DEVICES that names
# one, where the driver shows GPU instances, needs NVML, which no sysroot
# uses; without GPU instances the entry names no device, as in CUDA.
mig=$tmp/mig
two_node_machine "$mig"
CUDA_VISIBLE_DEVICES=MIG-4b6b2b0e-6c6f-5b5a-9d8e-0123456789ab run accelerators --local --sysroot "$mig"
expect_out '{}' "a MIG name without GPU instances names no device"
mkdir -p "$mig/proc/driver/nvidia/capabilities/gpu1/mig/gi3/ci0"
put "$mig" proc/driver/nvidia/capabilities/gpu1/mig/gi3/access "DeviceFileMinor: 30"
CUDA_VISIBLE_DEVICES=MIG-4b6b2b0e-6c6f-5b5a-9d8e-0123456789ab run accelerators --local --sysroot "$mig"
expect_status 2 "GPU instances and a MIG name under a sysroot"
expect_err_match "CUDA_VISIBLE_DEVICES names MIG devices, which only NVML lists, and NVML is not used under a sysroot" \
	"... says that only NVML can name them"
CUDA_VISIBLE_DEVICES=1,0 run accelerators --local --sysroot "$mig"
expect_out '{"GPU":2}' "GPU instances without a MIG name: no NVML needed"

# This machine: the driver's /proc read without NVML gives NVML's answers
# (nvidia-smi asks NVML): the order, the bus ids, the UUIDs, and MIG names.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
	nvidia-smi --query-gpu=pci.bus_id,uuid --format=csv,noheader |
		python3 -c 'import sys
for line in sys.stdin:
    bus, uuid = [f.strip() for f in line.split(",")]
    print(bus.lower()[-12:], uuid)' >"$tmp/nvml"
	run topo --format json
	python3 -c 'import json,sys
for d in json.load(open(sys.argv[1]))["devices"]:
    if d["vendor"] == "nvidia":
        print(d["pci_bus_id"], d["uuid"])' "$tmp/out" >"$tmp/proc"
	check "the driver's /proc gives NVML's GPUs, bus ids and UUIDs, in NVML's order" \
		cmp -s "$tmp/nvml" "$tmp/proc"
	last=$(tail -1 "$tmp/nvml" | cut -d' ' -f2)
	CUDA_VISIBLE_DEVICES=$(printf '%s' "$last" | cut -c1-30) run topo --format json
	check_eq "CUDA_VISIBLE_DEVICES by a prefix of NVML's last UUID names that GPU" \
		"$(python3 -c 'import json,sys; print(" ".join(d["uuid"] for d in json.load(open(sys.argv[1]))["devices"]))' "$tmp/out")" \
		"$last"
	mig_uuid=$(nvidia-smi -L | sed -n 's/.*(UUID: \(MIG-[^)]*\)).*/\1/p' | head -1)
	if [ -n "$mig_uuid" ]; then
		CUDA_VISIBLE_DEVICES=$mig_uuid run accelerators --local
		expect_out '{"GPU":1}' "CUDA_VISIBLE_DEVICES=$mig_uuid names one MIG device"
	else
		skip "a MIG device named by CUDA_VISIBLE_DEVICES" "no MIG device here"
	fi
else
	skip "the driver's /proc against NVML" "no NVIDIA GPU or nvidia-smi here"
fi
finish
