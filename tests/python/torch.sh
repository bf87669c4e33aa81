#!/bin/sh
# PyTorch: four processes, init_process_group("gloo") + all_reduce (test_torch.py).
. "$MUSTER_TEST_SRCDIR/tests/python/lib.sh"
run_pytest torch
