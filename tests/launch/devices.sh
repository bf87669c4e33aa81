#!/bin/sh
# Local accelerators read from trees shaped like real machines' /sys, /dev
# and /proc (MUSTER_SYSROOT, --sysroot): 8 NVIDIA GPUs with NVSwitches, 4
# AMD GPUs, TPU VMs, Habana cards, none; visible-devices filters by index
# and UUID; --nproc-per-node gpu and muster run's --gpus-per-proc slices;
# local_accelerators filling the own task's unknown accelerators.
set -eu
. "${MUSTER_TEST_SRCDIR:?}/tests/lib/tap.sh"
fixtures=$MUSTER_TEST_SRCDIR/tests/cli

conf=$MUSTER_TEST_SRCDIR/tests/launch/cluster.conf
unset CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES MUSTER_SYSROOT

# put ROOT PATH CONTENT: a file of the tree.
put() {
	mkdir -p "$(dirname "$1/$2")"
	printf '%s\n' "$3" >"$1/$2"
}

# A DGX-like host: 8 GPUs, 6 NVSwitches (one also listed by the driver),
# the driver's control nodes, and the BMC's VGA.
nv=$tmp/nvidia
for i in 0 1 2 3 4 5 6 7; do
	bus=$(printf '0000:%02x:00.0' $((0x07 + 0x10 * ((i + 3) % 8))))
	put "$nv" "proc/driver/nvidia/gpus/$bus/information" "Model: 		 NVIDIA H100 80GB HBM3
IRQ:   		 0
GPU UUID: 	 GPU-0000000$((((i + 3) % 8)))-aaaa-bbbb-cccc-dddddddddddd
Video BIOS: 	 96.00.99.00.01
Bus Type: 	 PCIe
Device Minor: 	 $i"
	put "$nv" "sys/bus/pci/devices/$bus/class" 0x030200
done
mkdir -p "$nv/dev"
for n in 0 1 2 3 4 5 6 7; do : >"$nv/dev/nvidia$n"; done
for n in 0 1 2 3 4 5; do : >"$nv/dev/nvidia-nvswitch$n"; done
: >"$nv/dev/nvidiactl"; : >"$nv/dev/nvidia-uvm"; : >"$nv/dev/nvidia-nvswitchctl"
put "$nv" "proc/driver/nvidia/gpus/0000:c5:00.0/information" "Model: NVSwitch"
put "$nv" "sys/bus/pci/devices/0000:c5:00.0/class" 0x068000
put "$nv" "sys/bus/pci/devices/0000:03:00.0/class" 0x030000
put "$nv" "sys/bus/pci/devices/0000:03:00.0/vendor" 0x1a03

run accelerators --local --sysroot "$nv"
expect_status 0 "accelerators --local --sysroot (8 NVIDIA)"
expect_out '{"GPU":8}' "8 GPUs; NVSwitches, control nodes and the BMC's VGA are not GPUs"
MUSTER_SYSROOT=$nv run accelerators --local
expect_out '{"GPU":8}' "MUSTER_SYSROOT does the same"
CUDA_VISIBLE_DEVICES=0,3,5 run accelerators --local --sysroot "$nv"
expect_out '{"GPU":3}' "CUDA_VISIBLE_DEVICES by index"
CUDA_VISIBLE_DEVICES=GPU-00000005-aaaa-bbbb-cccc-dddddddddddd,GPU-00000001 run accelerators --local --sysroot "$nv"
expect_out '{"GPU":2}' "CUDA_VISIBLE_DEVICES by UUID and by UUID prefix"
CUDA_VISIBLE_DEVICES=1,GPU-nonesuch,2 run accelerators --local --sysroot "$nv"
expect_out '{"GPU":1}' "CUDA_VISIBLE_DEVICES stops at the first entry that names no device, as CUDA does"
CUDA_VISIBLE_DEVICES= run accelerators --local --sysroot "$nv"
expect_out '{}' "CUDA_VISIBLE_DEVICES empty: no GPU"
CUDA_VISIBLE_DEVICES=GPU-0000000 run accelerators --local --sysroot "$nv"
expect_out '{}' "an ambiguous UUID prefix names no device"

# muster run slices them: 4 processes x 2 GPUs, in bus order.
MUSTER_SYSROOT=$nv run -c "$conf" run --for pytorch --nproc-per-node 4 --gpus-per-proc 2 --tee-prefix \
	-- sh -c 'echo "$LOCAL_RANK $CUDA_VISIBLE_DEVICES"'
expect_status 0 "run --gpus-per-proc 2 on 8 GPUs"
sort "$tmp/out" >"$tmp/sorted"; mv "$tmp/sorted" "$tmp/out"
expect_out "[10]: 2 4,5
[11]: 3 6,7
[8]: 0 0,1
[9]: 1 2,3" "each process its own CUDA_VISIBLE_DEVICES slice"
# The slices are PCI bus order indices, also for GPUs named by UUID: the
# workers get the device order that gives them that meaning.
MUSTER_SYSROOT=$nv CUDA_VISIBLE_DEVICES=GPU-00000007,GPU-00000006 CUDA_DEVICE_ORDER=FASTEST_FIRST \
	run -c "$conf" run --for jax --nproc-per-node gpu --gpus-per-proc 1 --tee-prefix \
	-- sh -c 'echo "$JAX_PROCESS_ID $CUDA_VISIBLE_DEVICES $JAX_LOCAL_DEVICE_IDS $CUDA_DEVICE_ORDER"'
sort "$tmp/out" >"$tmp/sorted"; mv "$tmp/sorted" "$tmp/out"
expect_out "[4]: 4 7 0 PCI_BUS_ID
[5]: 5 6 0 PCI_BUS_ID" "--nproc-per-node gpu counts the visible GPUs; slices follow CUDA_VISIBLE_DEVICES's order, in PCI bus order"
MUSTER_SYSROOT=$nv run -c "$conf" run --for pytorch --nproc-per-node 3 --gpus-per-proc 3 -- true
expect_status 5 "more GPUs asked for than present"
expect_err_match "need 9 GPUs; this machine shows 8" "... named with both numbers"
MUSTER_SYSROOT=$nv run -c "$conf" env --for pytorch --nproc-per-node gpu --format dotenv
expect_out_match '^PET_NPROC_PER_NODE=8$' "env --nproc-per-node gpu: 8"
MUSTER_SYSROOT=$nv CUDA_VISIBLE_DEVICES=1,2,3 run -c "$conf" hostfile --for openmpi --nproc-per-node gpu
expect_out "127.0.0.1 slots=6
localhost slots=3" "hostfile --nproc-per-node gpu: the visible GPUs per task, summed per host"
expect_err_match "^muster: notice: hostfile: assuming every node the backend gives no GPU count for has 3 GPUs, as this machine does$" \
	"... saying once that it assumes the other nodes' count"
check_eq "... once" "$(grep -c assuming "$tmp/err")" 1

# An MI300X-like host: KFD lists the CPU sockets as nodes too.
amd=$tmp/amd
put "$amd" sys/class/kfd/kfd/topology/nodes/0/properties "cpu_cores_count 96
simd_count 0
unique_id 0"
put "$amd" sys/class/kfd/kfd/topology/nodes/5/properties "cpu_cores_count 96
simd_count 0"
for n in 1 2 3 4; do
	put "$amd" sys/class/kfd/kfd/topology/nodes/$n/properties "cpu_cores_count 0
simd_count 1216
unique_id $((1000 + n))
gfx_target_version 90402"
done
run accelerators --local --sysroot "$amd"
expect_out '{"GPU":4}' "4 AMD GPUs, CPU nodes left out"
ROCR_VISIBLE_DEVICES=2,3 HIP_VISIBLE_DEVICES=1 MUSTER_SYSROOT=$amd run -c "$conf" run --for pytorch \
	--gpus-per-proc 1 -- sh -c 'echo "${ROCR_VISIBLE_DEVICES-unset} ${HIP_VISIBLE_DEVICES-unset} ${CUDA_DEVICE_ORDER-unset}"'
expect_out "3 unset unset" "HIP_VISIBLE_DEVICES indexes ROCr's list; the worker gets the physical id (and no CUDA order)"
HIP_VISIBLE_DEVICES=3,1 MUSTER_SYSROOT=$amd run -c "$conf" run --for pytorch --nproc-per-node gpu \
	--gpus-per-proc 1 --tee-prefix -- sh -c 'echo "$ROCR_VISIBLE_DEVICES ${HIP_VISIBLE_DEVICES-unset}"'
sort "$tmp/out" >"$tmp/sorted"; mv "$tmp/sorted" "$tmp/out"
expect_out "[4]: 3 unset
[5]: 1 unset" "HIP_VISIBLE_DEVICES alone keeps the AMD GPUs it names, in its order"
ROCR_VISIBLE_DEVICES=GPU-00000000000003eb run accelerators --local --sysroot "$amd"
expect_out '{"GPU":1}' "ROCR_VISIBLE_DEVICES by UUID"

# TPU VMs: /dev/accelN (v4), or VFIO groups of Google devices (v5e).
tpu=$tmp/tpu
mkdir -p "$tpu/dev" "$tpu/sys/class"
for n in 0 1 2 3; do : >"$tpu/dev/accel$n"; done
run accelerators --local --sysroot "$tpu"
expect_out '{"TPU":4}' "TPU v4 VM: 4 chips"
v5=$tmp/v5e
mkdir -p "$v5/dev/vfio"
: >"$v5/dev/vfio/vfio"
for n in 0 1 2 3 4 5 6 7; do
	: >"$v5/dev/vfio/$n"
	put "$v5" "sys/kernel/iommu_groups/$n/devices/0000:00:0$n.0/vendor" 0x1ae0
done
: >"$v5/dev/vfio/9"
put "$v5" "sys/kernel/iommu_groups/9/devices/0000:00:10.0/vendor" 0x8086
run accelerators --local --sysroot "$v5"
expect_out '{"TPU":8}' "TPU v5e VM: 8 VFIO groups of Google devices; vfio/vfio and another vendor's group are not"

hpu=$tmp/hpu
for n in 0 1 2 3 4 5 6 7; do put "$hpu" "sys/class/accel/accel$n/device/vendor" 0x1da3; done
run accelerators --local --sysroot "$hpu"
expect_out '{"HPU":8}' "Gaudi cards in the accel class"

# No accelerator at all (a BMC's VGA is no GPU).
none=$tmp/none
put "$none" "sys/bus/pci/devices/0000:03:00.0/class" 0x030000
mkdir -p "$none/dev" "$none/proc"
run accelerators --local --sysroot "$none"
expect_status 0 "no accelerators: exit 0"
expect_out '{}' "no accelerators: {}"
MUSTER_SYSROOT=$none run -c "$conf" run --for pytorch --nproc-per-node gpu -- true
expect_status 5 "--nproc-per-node gpu without GPUs"
expect_err_match "no GPU" "... says so"

# This machine, without a sysroot: NVML is loaded only if present.
if [ ! -e /proc/driver/nvidia ] && ! ldconfig -p 2>/dev/null | grep -q libnvidia-ml.so.1; then
	run accelerators --local
	expect_out '{}' "no NVIDIA driver or NVML here: no GPU, exit 0"
else
	run accelerators --local
	expect_status 0 "accelerators --local on this machine"
fi
run accelerators --sysroot "$none"
expect_status 64 "--sysroot without --local"

# local_accelerators = true: the own task's accelerators, when its backend
# gives none, are this machine's (8 GPUs and 8 Gaudi cards here); off by
# default, when a resolve reads no device at all.
mixed=$tmp/mixed
cp -R "$nv" "$mixed"
cp -R "$hpu/sys/class" "$mixed/sys/"
# fill_conf NAME TOP TASK WORKER1: a static chain, worker 1 with WORKER1.
fill_conf() {
	cat >"$tmp/$1.conf" <<CONF
$2
chain = ( { plugin = "static"; config = {
  jobs = { worker = ( { index = 0; address = "h0:2222"; accelerators = { TPU = 4; }; },
                      { index = 1; address = "h1:2222"; $4 } ); };
  $3 }; } );
CONF
}
fill_conf off "" 'task = { type = "worker"; index = 1; };' ""
fill_conf on "local_accelerators = true;" 'task = { type = "worker"; index = 1; };' ""
fill_conf given "local_accelerators = true;" 'task = { type = "worker"; index = 1; };' \
	"accelerators = { GPU = 2; };"
fill_conf noself "local_accelerators = true;" "" ""
MUSTER_SYSROOT=$mixed run -c "$tmp/off.conf" accelerators
expect_out '{}' "local_accelerators unset: the own task's accelerators stay unknown"
MUSTER_SYSROOT=$mixed run -c "$tmp/on.conf" accelerators
expect_out '{"GPU":8,"HPU":8}' "local_accelerators = true: this machine's devices, counted by kind"
MUSTER_SYSROOT=$mixed CUDA_VISIBLE_DEVICES=2,5 run -c "$tmp/on.conf" resolve --format json
expect_json '{"cluster":{"worker":["h0:2222","h1:2222"]},"task":{"type":"worker","index":1},"accelerators":{"worker":{"0":{"TPU":4},"1":{"GPU":2,"HPU":8}}}}' \
	"... as the visible-devices variables leave them, counts only; other tasks untouched"
MUSTER_SYSROOT=$mixed run -c "$tmp/given.conf" accelerators
expect_out '{"GPU":2}' "the backend's accelerators for the own task are kept"
MUSTER_SYSROOT=$mixed run -c "$tmp/noself.conf" resolve --format json
expect_json '{"cluster":{"worker":["h0:2222","h1:2222"]},"accelerators":{"worker":{"0":{"TPU":4}}}}' \
	"no own task: nothing added"
MUSTER_SYSROOT=$none run -c "$tmp/on.conf" accelerators
expect_out '{}' "a machine without devices adds none"
run -c "$tmp/on.conf" check
expect_status 0 "muster check knows local_accelerators"
fill_conf bad "local_accelerators = 1;" "" ""
run -c "$tmp/bad.conf" check
expect_err_match "bad.conf:1: 'local_accelerators' must be true or false" "... and wants a boolean"
finish
