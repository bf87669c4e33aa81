# A PyTorch worker: joins the gloo world that its environment describes,
# all-reduces rank + 1 and prints what it saw.
import os

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t)
print("rank %d of %d local %s node %s sum %d" % (rank, world, os.environ["LOCAL_RANK"],
      os.environ.get("GROUP_RANK"), int(t.item())), flush=True)
dist.destroy_process_group()
