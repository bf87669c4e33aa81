"""PyTorch for real: four processes on loopback, each calling
muster.torch.init_process_group("gloo") with its own TF_CONFIG task, then
all_reduce; ranks follow muster's numbering (the chief is rank 0)."""
import json
import os
import socket
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

WORKER = r"""
import sys
import torch
import torch.distributed as dist
import muster.torch
rank = muster.torch.init_process_group("gloo", config=sys.argv[1])
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t)
print(rank, dist.get_world_size(), t.item(), flush=True)
dist.destroy_process_group()
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_four_processes_all_reduce(conf):
    path = conf('chain = ( { plugin = "tf_config"; } );')
    cluster = {"worker": ["127.0.0.1:%d" % free_port() for _ in range(3)],
               "chief": ["127.0.0.1:%d" % free_port()], "ps": ["127.0.0.1:1"]}
    tasks = [("worker", 0), ("chief", 0), ("worker", 2), ("worker", 1)]
    procs = []
    for job, index in tasks:
        env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", TF_CONFIG=json.dumps(
            {"cluster": cluster, "task": {"type": job, "index": index}}))
        procs.append(subprocess.Popen([sys.executable, "-c", WORKER, path], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        results.append(out.split())
    # Chief first, then the workers in index order; 1+2+3+4 everywhere.
    assert results == [["1", "4", "10.0"], ["0", "4", "10.0"], ["3", "4", "10.0"],
                       ["2", "4", "10.0"]]


def test_own_task_outside_training_jobs(conf, monkeypatch):
    import muster.torch
    monkeypatch.setenv("TF_CONFIG", json.dumps(
        {"cluster": {"worker": ["127.0.0.1:1"], "ps": ["127.0.0.1:2"]},
         "task": {"type": "ps", "index": 0}}))
    with pytest.raises(muster.NoSuchTaskError, match="ps:0 is not a training task"):
        muster.torch.init_process_group("gloo",
                                        config=conf('chain = ( { plugin = "tf_config"; } );'))


def test_store_given_no_init_method(conf, monkeypatch, tmp_path):
    # torch raises "cannot specify both" for a store and an init_method.
    import torch.distributed as dist
    import muster.torch
    monkeypatch.setenv("GLOO_SOCKET_IFNAME", "lo")
    monkeypatch.setenv("TF_CONFIG", json.dumps(
        {"cluster": {"worker": ["127.0.0.1:1"]}, "task": {"type": "worker", "index": 0}}))
    store = dist.FileStore(str(tmp_path / "store"), 1)
    rank = muster.torch.init_process_group(
        "gloo", config=conf('chain = ( { plugin = "tf_config"; } );'), store=store)
    try:
        assert (rank, dist.get_rank(), dist.get_world_size()) == (0, 0, 1)
        t = torch.tensor([5.0])
        dist.all_reduce(t)
        assert t.item() == 5.0
    finally:
        dist.destroy_process_group()
