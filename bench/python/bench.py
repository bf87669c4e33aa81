#!/usr/bin/env python3
"""The Python package's benchmark, each contender beside its baseline in
one run (medians; `make bench-python`, never `make check`):

  (1) kubernetes, 10,000 pods on the loopback server of bench/kubernetes
      (podserver.py, gzip, pages of 500), TensorFlow's choices: the
      `muster resolve` process (the real binary) vs `muster.resolve(conf)`
      called in a Python process, and vs `Context.resolve()` there; and
      TensorFlow's algorithm on the official Python client
      (bench/kubernetes/tf_baseline.py, its cluster_spec() call) on the same
      server, BENCH_TF_ROUNDS times (default 1: about ten seconds each);
  (2) a TF_CONFIG of 10,000 tasks: CPU time of C's muster_resolve() +
      muster_result_to_json() (called through ctypes, a few microseconds
      of overhead) vs `Context.resolve()` + reading `cluster_spec`.

  bench.py --build BUILDDIR [--rounds 21]
Run it on a plain (-O2, no sanitizer) build configured for /usr/bin/python3.
"""
import argparse
import ctypes
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
SELECTOR = "job-name=tensorflow"


def stage(build, tmp):
    """The package of this build in a directory for sys.path."""
    pkg = os.path.join(tmp, "site", "muster")
    os.makedirs(pkg)
    for name in os.listdir(os.path.join(SRC, "python", "muster")):
        os.symlink(os.path.join(SRC, "python", "muster", name), os.path.join(pkg, name))
    os.symlink(os.path.join(build, "python", ".libs", "_muster.so"),
               os.path.join(pkg, "_muster.so"))
    return os.path.dirname(pkg)


PY_LOOP = r"""
import sys, time, muster
path, rounds = sys.argv[1], int(sys.argv[2])
once, ctx_t = [], []
ctx = muster.Context(path)
for _ in range(rounds):
    t = time.perf_counter(); muster.resolve(path); once.append(time.perf_counter() - t)
    t = time.perf_counter(); ctx.resolve().cluster_spec; ctx_t.append(time.perf_counter() - t)
print(" ".join(map(repr, once)))
print(" ".join(map(repr, ctx_t)))
"""


def kubernetes(a, muster_bin, env, tmp):
    srv = subprocess.Popen([sys.executable, os.path.join(SRC, "bench", "kubernetes",
                                                         "podserver.py"),
                            "--pods", "10000", "--gzip", "--limits", "500,0"],
                           stdout=subprocess.PIPE)
    try:
        m = re.match(r"ready (\d+)", srv.stdout.readline().decode())
        if not m:
            sys.exit("bench: podserver did not start")
        conf = os.path.join(tmp, "k8s.conf")
        with open(conf, "w") as f:
            f.write('chain = ( { plugin = "kubernetes"; timeout_ms = 600000; config = { '
                    'server = "http://127.0.0.1:%s"; limit = 500; jobs = { worker = [ "%s" ]; }; '
                    'all_namespaces = true; order = "name"; address = "host_ip"; }; } );\n'
                    % (m.group(1), SELECTOR))
        cli = []
        for _ in range(a.rounds):
            t = time.perf_counter()
            p = subprocess.run([muster_bin, "-c", conf, "resolve"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            cli.append(time.perf_counter() - t)
            if p.returncode:
                sys.exit("bench: muster resolve: %s" % p.stderr.decode())
        out = subprocess.run([sys.executable, "-c", PY_LOOP, conf, str(a.rounds)], env=env,
                             stdout=subprocess.PIPE, check=True).stdout.decode().split("\n")
        once = [float(x) for x in out[0].split()]
        ctx = [float(x) for x in out[1].split()]
        tf = tf_algorithm(a, "http://127.0.0.1:%s" % m.group(1), env, tmp)
    finally:
        srv.terminate()
        srv.wait()
    c, o, x = (statistics.median(v) * 1e3 for v in (cli, once, ctx))
    print("(1) kubernetes, 10,000 pods, TF's choices (median of %d):" % a.rounds)
    print("    muster resolve (process)          %8.1f ms" % c)
    print("    muster.resolve(conf) (Python)     %8.1f ms  %.2fx the CLI" % (o, o / c))
    print("    Context.resolve() + cluster_spec  %8.1f ms  %.2fx the CLI" % (x, x / c))
    if tf is not None:
        print("    TF's algorithm, official client   %8.1f ms  %.0fx muster.resolve()"
              % (tf, tf / o))


def tf_algorithm(a, server, env, tmp):
    """Median cluster_spec() time of TensorFlow's algorithm, in ms (None
    without python3-kubernetes)."""
    try:
        import kubernetes  # noqa: F401
    except ImportError:
        print("    (TF's algorithm not run: no python3-kubernetes)")
        return None
    sys.path.insert(0, os.path.join(SRC, "bench", "kubernetes"))
    from bench import plain_kubeconfig  # bench/kubernetes/bench.py
    tf_env = dict(env, KUBECONFIG=plain_kubeconfig(os.path.join(tmp, "kubeconfig"), server))
    tf_env.pop("LD_LIBRARY_PATH", None)
    rounds = int(os.environ.get("BENCH_TF_ROUNDS", "1"))
    p = subprocess.run([sys.executable, os.path.join(SRC, "bench", "kubernetes", "tf_baseline.py"),
                        "--job", "worker=" + SELECTOR, "--rounds", str(rounds)], env=tf_env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        sys.exit("bench: tf_baseline: %s" % p.stderr.decode(errors="replace"))
    calls = [float(x) for x in re.findall(rb"cluster_spec_s ([0-9.]+)", p.stderr)]
    return statistics.median(calls) * 1e3


def tf_config(a, build, tmp):
    n = 10000
    os.environ["TF_CONFIG"] = json.dumps({
        "cluster": {"worker": ["worker-%d.train.svc:2222" % i for i in range(n)]},
        "task": {"type": "worker", "index": 0}})
    conf = os.path.join(tmp, "tf.conf")
    with open(conf, "w") as f:
        f.write('chain = ( { plugin = "tf_config"; } );\n')
    lib = ctypes.CDLL(os.path.join(build, "core", ".libs", "libmuster.so"))
    vp = ctypes.c_void_p
    lib.muster_ctx_open.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p, vp, vp]
    lib.muster_resolve.argtypes = [ctypes.POINTER(vp), vp, vp]
    lib.muster_result_to_json.argtypes = [ctypes.POINTER(vp), vp, vp]
    lib.muster_free.argtypes = [vp]
    lib.muster_result_free.argtypes = [vp]
    cctx, r, s = vp(), vp(), vp()
    if lib.muster_ctx_open(ctypes.byref(cctx), conf.encode(), None, None) < 0:
        sys.exit("bench: muster_ctx_open failed")
    import muster
    pctx = muster.Context(conf)
    c_t, py_t = [], []
    for _ in range(a.rounds):
        t = time.process_time()
        if lib.muster_resolve(ctypes.byref(r), cctx, None) < 0 or \
                lib.muster_result_to_json(ctypes.byref(s), r, None) < 0:
            sys.exit("bench: C resolve failed")
        c_t.append(time.process_time() - t)
        lib.muster_free(s)
        lib.muster_result_free(r)
        t = time.process_time()
        spec = pctx.resolve().cluster_spec
        py_t.append(time.process_time() - t)
        assert len(spec["worker"]) == n
    c, p = statistics.median(c_t) * 1e3, statistics.median(py_t) * 1e3
    print("(2) TF_CONFIG of 10,000 tasks, CPU time (median of %d):" % a.rounds)
    print("    C: muster_resolve + muster_result_to_json  %6.2f ms" % c)
    print("    Python: Context.resolve() + cluster_spec   %6.2f ms  %.2fx C" % (p, p / c))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("BENCH_ROUNDS", "21")))
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    with tempfile.TemporaryDirectory() as tmp:
        site = stage(build, tmp)
        sys.path.insert(0, site)
        env = dict(os.environ, PYTHONPATH=site, LD_LIBRARY_PATH=os.path.join(build, "core",
                                                                             ".libs"),
                   MUSTER_PLUGIN_PATH=os.path.join(build, "plugins", "kubernetes", ".libs") +
                   ":" + os.path.join(build, "plugins", "tf_config", ".libs"))
        for k in ("MUSTER_CONF", "TF_CONFIG", "KUBERNETES_SERVICE_HOST", "KUBECONFIG"):
            env.pop(k, None)
        os.environ.update(MUSTER_PLUGIN_PATH=env["MUSTER_PLUGIN_PATH"])
        real = os.path.join(build, "cli", ".libs", "muster")
        muster_bin = real if os.path.exists(real) else os.path.join(build, "cli", "muster")
        kubernetes(a, muster_bin, env, tmp)
        tf_config(a, build, tmp)


if __name__ == "__main__":
    main()
