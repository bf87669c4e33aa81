"""This machine's accelerators, counted as ``muster accelerators --local`` counts them."""
import os
from typing import Dict, Union

from muster import _muster

__all__ = ["local_accelerators"]


def local_accelerators(sysroot: Union[str, "os.PathLike[str]", None] = None) -> Dict[str, int]:
    """{kind: count} of this machine's devices, e.g. {"GPU": 4}; {} when none.

    NVIDIA GPUs through NVML, else /proc/driver/nvidia; AMD GPUs from the KFD
    topology; /sys/class/accel; TPUs from /dev/accelN or VFIO groups.
    CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES filter
    them.  `sysroot` is a directory standing for "/" (its sys, dev and proc are
    read, NVML is not used); None: $MUSTER_SYSROOT when set, else the machine.
    """
    return _muster.local_accelerators(sysroot)
