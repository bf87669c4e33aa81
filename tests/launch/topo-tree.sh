# Fake machines as sysfs and the NVIDIA driver's /proc show them, for
# muster topo, muster run --numa-binding and bench/devices (sourced).
# The CPUs they name are 0 and 1, which every test machine has.

# put ROOT PATH CONTENT: a file of the tree.
put() {
	mkdir -p "$(dirname "$1/$2")"
	printf '%s\n' "$3" >"$1/$2"
}

# pci_function ROOT PATH NUMA CLASS: a PCI function at PATH under
# /sys/devices, on NUMA node NUMA, and its /sys/bus/pci/devices link.
pci_function() {
	put "$1" "sys/devices/$2/numa_node" "$3"
	put "$1" "sys/devices/$2/class" "$4"
	mkdir -p "$1/sys/bus/pci/devices"
	ln -sfn "../../../devices/$2" "$1/sys/bus/pci/devices/${2##*/}"
}

# net_device ROOT NAME PATH: interface NAME of the PCI function at PATH,
# linked as sysfs links them.
net_device() {
	mkdir -p "$1/sys/devices/$3/net/$2" "$1/sys/class/net"
	ln -sfn ../../../"${3##*/}" "$1/sys/devices/$3/net/$2/device"
	ln -sfn "../../devices/$3/net/$2" "$1/sys/class/net/$2"
}

# nvidia_gpu ROOT BUS MINOR: the driver's information file.
nvidia_gpu() {
	put "$1" "proc/driver/nvidia/gpus/$2/information" "Model: 		 NVIDIA H200
IRQ:   		 0
GPU UUID: 	 GPU-0000000$3-aaaa-bbbb-cccc-dddddddddddd
Video BIOS: 	 96.00.99.00.01
Bus Type: 	 PCIe
DMA Size: 	 52 bits
DMA Mask: 	 0xfffffffffffff
Bus Location: 	 $2
Device Minor: 	 $3
GPU Excluded:	 No"
}

# cpu ROOT N PACKAGE SIBLINGS: CPU N of package PACKAGE, on the physical
# core whose threads are SIBLINGS.
cpu() {
	put "$1" "sys/devices/system/cpu/cpu$2/topology/physical_package_id" "$3"
	put "$1" "sys/devices/system/cpu/cpu$2/topology/thread_siblings_list" "$4"
}

# two_node_machine ROOT: one package of two NUMA nodes (CPU 0 and CPU 1),
# four GPUs and two NICs:
#   root complex 0000:00, node 0: switch 0000:01:00.0 with GPU0 (03:00.0)
#     below it, GPU1 (08:00.0) below a second switch (06:00.0) under it,
#     and ib0 (05:00.0) below it;
#   root complex 0000:80, node 1: GPU2 (83:00.0) and ib1 (84:00.0) below
#     one switch (81:00.0); GPU3 (87:00.0) below another root port's switch.
# NCCL's levels: GPU0-GPU1 PXB, GPU2-GPU3 PHB, across the nodes SYS;
# GPU0-ib0 PIX, GPU1-ib0 PXB, GPU2-ib1 PIX, GPU3-ib1 PHB.
two_node_machine() {
	put "$1" sys/devices/system/node/node0/cpulist 0
	put "$1" sys/devices/system/node/node1/cpulist 1
	put "$1" sys/devices/system/node/possible 0-1
	cpu "$1" 0 0 0
	cpu "$1" 1 0 1
	sw0=pci0000:00/0000:00:01.0/0000:01:00.0
	sw8=pci0000:80/0000:80:01.0/0000:81:00.0
	pci_function "$1" $sw0/0000:02:00.0/0000:03:00.0 0 0x030200
	pci_function "$1" $sw0/0000:02:01.0/0000:06:00.0/0000:07:00.0/0000:08:00.0 0 0x030200
	pci_function "$1" $sw0/0000:02:02.0/0000:05:00.0 0 0x020700
	pci_function "$1" $sw8/0000:82:00.0/0000:83:00.0 1 0x030200
	pci_function "$1" $sw8/0000:82:01.0/0000:84:00.0 1 0x020700
	pci_function "$1" pci0000:80/0000:80:02.0/0000:85:00.0/0000:86:00.0/0000:87:00.0 1 0x030200
	net_device "$1" ib0 $sw0/0000:02:02.0/0000:05:00.0
	net_device "$1" ib1 $sw8/0000:82:01.0/0000:84:00.0
	mkdir -p "$1/sys/devices/virtual/net/lo"
	ln -sfn ../../devices/virtual/net/lo "$1/sys/class/net/lo"
	nvidia_gpu "$1" 0000:03:00.0 0
	nvidia_gpu "$1" 0000:08:00.0 1
	nvidia_gpu "$1" 0000:83:00.0 2
	nvidia_gpu "$1" 0000:87:00.0 3
}

# one_node_machine ROOT SIBLINGS: one NUMA node of CPUs 0-1, whose
# physical cores are as SIBLINGS says ("0 1": two cores; "0-1 0-1": one of
# two threads), and two GPUs below one switch on it.
one_node_machine() {
	put "$1" sys/devices/system/node/node0/cpulist 0-1
	set -- "$1" $2
	cpu "$1" 0 0 "$2"
	cpu "$1" 1 0 "$3"
	sw=pci0000:00/0000:00:01.0/0000:01:00.0
	pci_function "$1" $sw/0000:02:00.0/0000:03:00.0 0 0x030200
	pci_function "$1" $sw/0000:02:01.0/0000:04:00.0 0 0x030200
	nvidia_gpu "$1" 0000:03:00.0 0
	nvidia_gpu "$1" 0000:04:00.0 1
}

# dgx_machine ROOT: a DGX H100-like host (NVIDIA's published topology):
# two packages of one node each (CPU 0 and CPU 1 stand for them), eight
# GPUs, each below a PCIe switch of its own with one NIC (ibN, PIX), four
# GPUs and switches per node, and four NVSwitches the driver lists too.
dgx_machine() {
	put "$1" sys/devices/system/node/node0/cpulist 0
	put "$1" sys/devices/system/node/node1/cpulist 1
	cpu "$1" 0 0 0
	cpu "$1" 1 1 1
	for i in 0 1 2 3 4 5 6 7; do
		node=$((i / 4))
		rc=$(printf '%04x:%02x' 0 $((node * 0x80)))
		sw=$(printf 'pci%s/%s:%02x.0/0000:%02x:00.0' "$rc" "$rc" $((1 + i % 4)) $((0x10 * (i + 1))))
		gpu=$(printf '0000:%02x:00.0' $((0x10 * (i + 1) + 2)))
		nic=$(printf '0000:%02x:00.0' $((0x10 * (i + 1) + 3)))
		pci_function "$1" "$sw/$(printf '0000:%02x:00.0' $((0x10 * (i + 1) + 1)))/$gpu" $node 0x030200
		pci_function "$1" "$sw/$(printf '0000:%02x:01.0' $((0x10 * (i + 1) + 1)))/$nic" $node 0x020700
		net_device "$1" "ib$i" "$sw/$(printf '0000:%02x:01.0' $((0x10 * (i + 1) + 1)))/$nic"
		nvidia_gpu "$1" "$gpu" $i
	done
	for s in 0 1 2 3; do
		bus=$(printf '0000:%02x:00.0' $((0xa0 + s)))
		pci_function "$1" "pci0000:a0/$bus" 0 0x068000
		put "$1" "proc/driver/nvidia/gpus/$bus/information" "Model: NVSwitch"
	done
}
