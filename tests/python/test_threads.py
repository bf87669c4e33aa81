"""One Context from 16 threads at once (the GIL released while resolving),
and no growth in references or memory over many resolves."""
import json
import os
import subprocess
import sys
import threading

import muster
from conftest import fixture


def test_sixteen_threads_one_context(conf, monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps(
        {"cluster": {"worker": ["w%d:2222" % i for i in range(64)]},
         "task": {"type": "worker", "index": 5}}))
    ctx = muster.Context(conf('chain = ( { plugin = "tf_config"; } );'))
    want = ctx.resolve().to_json()
    errors, answers = [], []
    start = threading.Barrier(16)

    def work():
        try:
            start.wait()
            for _ in range(200):
                c = ctx.resolve()
                answers.append((c.to_json(), c.task_id))
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(answers) == 16 * 200
    assert set(answers) == {(want, 5)}


def test_threads_run_while_one_resolves(conf, apiserver):
    # A resolve that takes 3 s (the server's slow mode) must not hold the GIL.
    server = apiserver("--mode", "slow")
    ctx = muster.Context(conf('chain = ( { plugin = "kubernetes"; config = { %s }; } );'
                              % server.entry()))
    ticks = []
    t = threading.Thread(target=ctx.resolve)
    t.start()
    while t.is_alive():
        ticks.append(1)
        t.join(0.01)
    assert len(ticks) > 50


GROWTH = r"""
import gc, sys
import muster

def rss_kb():
    with open("/proc/self/status") as f:
        return int(next(l for l in f if l.startswith("VmRSS:")).split()[1])

def use(c):
    # The worker job is sparse: pytorch's world is the chief alone.
    return (c.cluster_spec, c.accelerators, c.num_accelerators(), c.master(), c.to_json(),
            c.tf_config("worker:2"), c.task_type, c.task_id, c.rpc_layer, c.environment,
            c.source, c.env("pytorch", "chief:0", jobs="chief"), c.hostfile("openmpi"),
            muster.local_accelerators(sys.argv[3]))

def failing(c):
    try:
        muster.resolve(sys.argv[2])
    except muster.ConflictError as e:
        str(e)
    try:
        c.env("mxnet")
    except muster.Error as e:
        str(e)

ctx = muster.Context(sys.argv[1])
for _ in range(1000):  # warm up caches and allocator pools
    use(ctx.resolve())
    c = muster.resolve(sys.argv[1])
    use(c)
    failing(c)
gc.collect()
blocks, rss = sys.getallocatedblocks(), rss_kb()
for _ in range(10000):
    use(ctx.resolve())
for _ in range(10000):
    c = muster.resolve(sys.argv[1])
    use(c)
    failing(c)
gc.collect()
print(sys.getallocatedblocks() - blocks, rss_kb() - rss)
"""


def test_no_reference_or_memory_growth(sysroot):
    # Its own process: under ASan, without the quarantine that holds freed
    # memory (RSS would grow by its size whatever we do).
    env = dict(os.environ)
    if "libasan" in env.get("LD_PRELOAD", ""):
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + \
            ":quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
    p = subprocess.run([sys.executable, "-c", GROWTH, fixture("sparse.conf"),
                        fixture("conflict.conf"), str(sysroot(nvidia=2, amd=1))], env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    blocks, rss_kb = map(int, p.stdout.split())
    # One object kept per resolve would be 10,000 or more; a hundred or so
    # come and go between runs (hash randomisation resizes interpreter
    # caches differently), so the bound sits between the two.
    assert blocks < 1000, "Python objects still allocated: %d" % blocks
    assert rss_kb < 5 * 1024, "RSS grew by %d kB" % rss_kb
