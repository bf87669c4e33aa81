"""What PyTorch Lightning's SLURMEnvironment and JAX's SlurmCluster compute
for one Slurm task from its own SLURM_* variables (docs/ranks.md 1.5, 1.6),
written out here from their rules (neither is imported): the numbers a
launch must give that task.

    python3 peers.py           RANK=.. LOCAL_RANK=.. NODE_RANK=.. LOCAL_WORLD_SIZE=..
                               WORLD_SIZE=.. MASTER_ADDR=..   (one line)
    python3 peers.py jax       JAX_PROCESS_ID=.. JAX_NUM_PROCESSES=..
                               JAX_COORDINATOR_HOST=.. JAX_LOCAL_DEVICE_IDS=..

Global rank, world size and local rank are SLURM_PROCID, SLURM_NTASKS and
SLURM_LOCALID in both; the node rank is Lightning's SLURM_NODEID (JAX has
none); the local world size, which neither computes (Lightning takes its
`devices` flag), is Slurm's count for that node in SLURM_STEP_TASKS_PER_NODE.
The master is JAX's: the first host of the step's node list, cut out as
JAX cuts it (Lightning reads the allocation's list, a host outside a step
on part of it).  Under -m arbitrary neither peer finds rank 0's host; it
is then the first host of the task list the step was given.
"""
import os
import re
import sys


def counts(text):
    """Slurm's tasks-per-node list: "2(x3),1" is [2, 2, 2, 1]."""
    out = []
    for item in text.split(","):
        m = re.fullmatch(r"(\d+)(?:\(x(\d+)\))?", item)
        out += [int(m.group(1))] * int(m.group(2) or 1)
    return out


def jax_first_host(nodelist):
    """JAX's SlurmCluster: text up to the first ',' or '['; after a '[',
    the prefix and the first bound of the range."""
    cut = min([i for i in (nodelist.find(","), nodelist.find("[")) if i >= 0] or [len(nodelist)])
    if cut < len(nodelist) and nodelist[cut] == "[":
        return nodelist[:cut] + re.split(r"[-,\]]", nodelist[cut + 1:])[0]
    return nodelist[:cut]


def main():
    env = os.environ
    rank, world = int(env["SLURM_PROCID"]), int(env["SLURM_NTASKS"])
    local, node = int(env["SLURM_LOCALID"]), int(env["SLURM_NODEID"])
    master = jax_first_host(env["SLURM_STEP_NODELIST"])
    if env.get("SLURM_DISTRIBUTION", "").split(":")[0].split(",")[0] == "arbitrary":
        master = jax_first_host(env["SLURM_ARBITRARY_NODELIST"])
    if sys.argv[1:] == ["jax"]:
        print("JAX_PROCESS_ID=%d JAX_NUM_PROCESSES=%d JAX_COORDINATOR_HOST=%s "
              "JAX_LOCAL_DEVICE_IDS=%d" % (rank, world, master, local))
        return
    local_world = counts(env["SLURM_STEP_TASKS_PER_NODE"])[node]
    print("RANK=%d LOCAL_RANK=%d NODE_RANK=%d LOCAL_WORLD_SIZE=%d WORLD_SIZE=%d MASTER_ADDR=%s"
          % (rank, local, node, local_world, world, master))


main()
