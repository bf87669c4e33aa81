# A PyTorch worker that muster run starts inside a Slurm task (one task a
# node, --nproc-per-node 2): its RANK, LOCAL_RANK, NODE_RANK and WORLD_SIZE
# must be the ones its node's place in the step gives it (SLURM_NODEID and
# SLURM_NTASKS, inherited from the task), MASTER_ADDR the host of task 0
# (WANT_MASTER, which the test knows), and the gloo world they describe
# must all-reduce.  Exits 1 naming what is wrong.
import os
import sys

import torch
import torch.distributed as dist

env = os.environ
local, node = int(env["LOCAL_RANK"]), int(env["SLURM_NODEID"])
want = {"RANK": node * 2 + local, "NODE_RANK": node, "LOCAL_WORLD_SIZE": 2,
        "WORLD_SIZE": int(env["SLURM_NTASKS"]) * 2}
wrong = ["%s=%s (want %d)" % (k, env.get(k), v) for k, v in want.items()
         if env.get(k) != str(v)]
if env.get("MASTER_ADDR") != env["WANT_MASTER"]:
    wrong.append("MASTER_ADDR=%s (want %s)" % (env.get("MASTER_ADDR"), env["WANT_MASTER"]))
if not 0 <= local < 2:
    wrong.append("LOCAL_RANK=%d is not 0 or 1" % local)
if wrong:
    sys.exit("worker on node %d: %s" % (node, ", ".join(wrong)))
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t)
print("rank %d of %d local %d node %s sum %d" % (rank, world, local, env["NODE_RANK"],
      int(t.item())), flush=True)
dist.destroy_process_group()
