#!/usr/bin/env python3
"""swap.py A B STOP: exchanges the names of files A and B as fast as it can
(renameat2 RENAME_EXCHANGE, so A always names one of the two) until the
file STOP exists; prints the number of swaps.  Exits 77 where the file
system cannot exchange names."""
import ctypes
import os
import sys

AT_FDCWD = -100
RENAME_EXCHANGE = 2

libc = ctypes.CDLL(None, use_errno=True)
a, b, stop = (os.fsencode(p) for p in sys.argv[1:4])
swaps = 0
while not os.path.exists(stop):
    for _ in range(256):
        if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
            print("renameat2:", os.strerror(ctypes.get_errno()))
            sys.exit(77)
        swaps += 1
print(swaps, "swaps")
