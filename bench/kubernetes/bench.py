#!/usr/bin/env python3
"""The kubernetes plugin's benchmark (issue 3, "Performance"), side by side
in one run, against one loopback server (podserver.py: N pods made from a
recorded real pod, every answer pre-rendered):

  (a) the floor: curl fetching the very pages muster fetches, to /dev/null,
      one process, one connection (identity and gzip);
  (b) TensorFlow's algorithm with the official Python client
      (tf_baseline.py, Debian's python3-kubernetes): one unpaged
      all-namespaces list, V1Pod objects, sort, Running check, hostIP;
  (c) `muster resolve` with the kubernetes plugin (the real binary, not
      libtool's wrapper): once with TF's choices (all namespaces, name
      order, host IP: the same answer as (b), checked) and once with its
      defaults (one namespace, natural order, pod IP, accelerators).

Rounds are interleaved (a, c, c', b, a, c, ...) so machine noise hits every
contender alike; medians are reported.  Peak RSS: GNU time's %M for each
child (see run_child).

  bench.py --build BUILDDIR [--sizes 10000,100000] [--rounds 11]
           [--py-rounds 3] [--py-max 10000]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SELECTOR = "job-name=tensorflow"
PYTHON = os.environ.get("BENCH_PYTHON", "/usr/bin/python3")


TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def plain_kubeconfig(path, server):
    """A kubeconfig for `server` with no credentials (the loopback pod
    server), for TensorFlow's algorithm on the official client; its path."""
    with open(path, "w") as f:
        f.write("apiVersion: v1\nkind: Config\nclusters:\n- name: b\n  cluster: {server: \"%s\"}\n"
                "users:\n- name: b\n  user: {}\ncontexts:\n- name: b\n"
                "  context: {cluster: b, user: b}\ncurrent-context: b\n" % server)
    return path


def run_child(argv, env=None, stdout=None):
    """Run argv to its end: (wall seconds, peak RSS in KiB, exit status,
    stdout bytes if stdout is PIPE, stderr bytes).

    The peak RSS comes from GNU time (-f %M) when /usr/bin/time exists: a
    child forked straight from this Python process would report this
    process's RSS, inherited up to its exec(), as its own peak.  Without it,
    wait4()'s ru_maxrss, an upper bound.  The wall time is measured here,
    around both (time adds well under a millisecond)."""
    capture = stdout is subprocess.PIPE
    out = tempfile.TemporaryFile() if capture else subprocess.DEVNULL
    err = tempfile.TemporaryFile()
    rssfile = None
    if TIME:
        rssfile = tempfile.NamedTemporaryFile(prefix="rss.", delete=False)
        rssfile.close()
        argv = [TIME, "-q", "-f", "%M", "-o", rssfile.name] + list(argv)
    t = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdout=out, stderr=err)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    rss = ru.ru_maxrss
    if rssfile:
        with open(rssfile.name) as f:
            lines = f.read().split()
        os.unlink(rssfile.name)
        rss = int(lines[-1]) if lines and lines[-1].isdigit() else rss
    data = b""
    if capture:
        out.seek(0)
        data = out.read()
        out.close()
    err.seek(0)
    e = err.read()
    err.close()
    return wall, rss, p.returncode, data, e


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def fmt_ms(s):
    return "%.1f ms" % (s * 1000) if s < 10 else "%.2f s" % s


def get(url, gz=False):
    req = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gz else {})
    with urllib.request.urlopen(req) as r:
        return r.read()


def page_urls(base, path, limit):
    urls, cont = [], None
    while True:
        q = "labelSelector=%s&limit=%d" % (urllib.parse.quote(SELECTOR, safe=""), limit)
        if cont:
            q += "&continue=" + urllib.parse.quote(cont, safe="")
        urls.append("%s%s?%s" % (base, path, q))
        cont = json.loads(get(urls[-1]))["metadata"].get("continue")
        if not cont:
            return urls


def stats(base):
    return json.loads(get(base + "/stats"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--sizes", default=os.environ.get("BENCH_SIZES", "10000,100000"))
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("BENCH_ROUNDS", "11")))
    ap.add_argument("--py-rounds", type=int, default=int(os.environ.get("BENCH_PY_ROUNDS", "3")))
    ap.add_argument("--py-max", type=int, default=int(os.environ.get("BENCH_PY_MAX", "10000")))
    ap.add_argument("--limit", type=int, default=500)
    a = ap.parse_args()

    build = os.path.abspath(a.build)
    muster = os.path.join(build, "cli/.libs/muster")
    if not os.access(muster, os.X_OK):
        muster = os.path.join(build, "cli/muster")
    plugdir = os.path.join(build, "plugins/kubernetes/.libs")
    if not os.path.exists(os.path.join(plugdir, "kubernetes.so")):
        sys.exit("bench: no kubernetes plugin in %s (build it first)" % plugdir)
    curl = shutil.which("curl") or sys.exit("bench: curl not found")
    have_py = subprocess.call([PYTHON, "-c", "import kubernetes"],
                              stderr=subprocess.DEVNULL) == 0
    if not have_py:
        print("# (b) skipped: %s cannot import kubernetes (apt-get install python3-kubernetes)" % PYTHON)

    env = dict(os.environ)
    for k in ("MUSTER_CONF", "TF_CONFIG", "KUBERNETES_SERVICE_HOST", "KUBECONFIG", "POD_NAME"):
        env.pop(k, None)
    env["LD_LIBRARY_PATH"] = os.path.join(build, "core/.libs")
    env["MUSTER_PLUGIN_PATH"] = plugdir
    tmp = tempfile.mkdtemp(prefix="muster-bench-k8s.")
    env["HOME"] = tmp
    results = []
    try:
        for n in [int(x) for x in a.sizes.split(",")]:
            results.append(bench_size(a, n, muster, curl, env, tmp, have_py and n <= a.py_max))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print()
    print("Summary")
    for r in results:
        print(r)


def bench_size(a, n, muster, curl, env, tmp, with_py):
    limits = "%d,0" % a.limit if with_py else str(a.limit)
    srv = subprocess.Popen([sys.executable, os.path.join(HERE, "podserver.py"), "--pods", str(n),
                            "--gzip", "--limits", limits], stdout=subprocess.PIPE)
    try:
        line = srv.stdout.readline().decode()
        m = re.match(r"ready (\d+)", line)
        if not m:
            sys.exit("bench: podserver did not start: %r" % line)
        port = int(m.group(1))
        base = "http://127.0.0.1:%d" % port
        return bench_with_server(a, n, muster, curl, env, tmp, with_py, base)
    finally:
        srv.terminate()
        srv.wait()


def bench_with_server(a, n, muster, curl, env, tmp, with_py, base):
    print("== %d pods, %s, pages of %d" % (n, base, a.limit))
    # No token: plain http, as `kubectl proxy` serves (muster warns about a
    # token over http); the server checks none.
    common = 'server = "%s"; limit = %d; jobs = { worker = [ "%s" ]; };' % (
        base, a.limit, SELECTOR)
    confs = {
        "tf": 'all_namespaces = true; order = "name"; address = "host_ip";',
        "default": 'namespace = "training";',
    }
    for k, v in confs.items():
        path = os.path.join(tmp, "%s-%d.conf" % (k, n))
        with open(path, "w") as f:
            f.write('chain = ( { plugin = "kubernetes"; timeout_ms = 600000; config = { %s %s }; } );\n'
                    % (common, v))
        confs[k] = path

    # What muster asks for: one run of each config, then the server's counters.
    stats(base)
    check = {}
    enc = {}
    for k, path in confs.items():
        wall, rss, rc, out, err = run_child([muster, "-c", path, "resolve"], env=env,
                                            stdout=subprocess.PIPE)
        if rc != 0:
            sys.exit("bench: muster (%s) exited %d: %s" % (k, rc, err.decode(errors="replace")))
        check[k] = json.loads(out)
        s = stats(base)
        enc[k] = "gzip" if s["gzip"] else "identity"
        print("# muster (%s config): %d requests, %d bytes on the wire, %s"
              % (k, s["requests"], s["bytes"], enc[k]))
    # The default config's answer: natural order of tensorflow-worker-I, pod IPs.
    want = []
    for i in range(n):
        ip = i + 256
        want.append("10.%d.%d.%d:8470" % ((ip >> 16) & 255, (ip >> 8) & 255, ip & 255))
    ok_default = check["default"]["cluster"] == {"worker": want}
    print("# muster (default config): %d tasks, natural order, pod IPs: %s"
          % (len(check["default"]["cluster"].get("worker", [])), "correct" if ok_default else "WRONG"))

    # (a) the same pages, fetched by curl: all-namespaces path, as the tf config.
    urls = page_urls(base, "/api/v1/pods", a.limit)
    cfg = os.path.join(tmp, "curl-%d.cfg" % n)
    with open(cfg, "w") as f:
        f.write('silent\nheader = "Accept: application/json"\n')
        for u in urls:
            f.write('url = "%s"\noutput = "/dev/null"\n' % u)
    floor = {"identity": [curl, "-K", cfg], "gzip": [curl, "--compressed", "-K", cfg]}

    py_cmd = None
    if with_py:
        kc = plain_kubeconfig(os.path.join(tmp, "kubeconfig-%d" % n), base)
        py_env = dict(env, KUBECONFIG=kc)
        py_env.pop("LD_LIBRARY_PATH", None)
        py_cmd = ([PYTHON, os.path.join(HERE, "tf_baseline.py"), "--job", "worker=" + SELECTOR], py_env)

    t = {k: [] for k in ("a_identity", "a_gzip", "c_tf", "c_default", "b_proc", "b_call")}
    rss = {k: [] for k in ("c_tf", "c_default", "b_proc")}
    py_out = None
    for r in range(a.rounds):
        for kind in ("identity", "gzip"):
            w, _, rc, _, err = run_child(floor[kind])
            if rc:
                sys.exit("bench: curl failed: %s" % err.decode(errors="replace"))
            t["a_" + kind].append(w)
        for k in ("tf", "default"):
            w, m, rc, _, err = run_child([muster, "-c", confs[k], "resolve"], env=env)
            if rc:
                sys.exit("bench: muster failed: %s" % err.decode(errors="replace"))
            t["c_" + k].append(w)
            rss["c_" + k].append(m)
        if py_cmd and r < a.py_rounds:
            w, m, rc, out, err = run_child(py_cmd[0], env=py_cmd[1], stdout=subprocess.PIPE)
            if rc:
                sys.exit("bench: tf_baseline failed: %s" % err.decode(errors="replace"))
            t["b_proc"].append(w)
            rss["b_proc"].append(m)
            t["b_call"].append(float(re.search(rb"cluster_spec_s ([0-9.]+)", err).group(1)))
            py_out = json.loads(out)
    same = None
    if py_out is not None:
        same = py_out["cluster"] == check["tf"]["cluster"]
        print("# (b) and (c, TF's choices) give the same cluster: %s" % ("yes" if same else "NO"))

    med = {k: median(v) for k, v in t.items()}
    mb = lambda kib: "%.1f MB" % (kib / 1024.0)
    print("%-58s %12s %12s" % ("", "median", "peak RSS"))
    print("%-58s %12s" % ("(a) curl, same %d pages, identity" % len(urls), fmt_ms(med["a_identity"])))
    print("%-58s %12s" % ("(a) curl, same %d pages, gzip" % len(urls), fmt_ms(med["a_gzip"])))
    if t["b_proc"]:
        print("%-58s %12s %12s" % ("(b) python3-kubernetes, TF algorithm: cluster_spec()",
                                   fmt_ms(med["b_call"]), ""))
        print("%-58s %12s %12s" % ("(b) ... whole process (python start, import, call)",
                                   fmt_ms(med["b_proc"]), mb(max(rss["b_proc"]))))
    print("%-58s %12s %12s" % ("(c) muster resolve, TF's choices (%s)" % enc["tf"],
                               fmt_ms(med["c_tf"]), mb(max(rss["c_tf"]))))
    print("%-58s %12s %12s" % ("(c) muster resolve, defaults (%s)" % enc["default"],
                               fmt_ms(med["c_default"]), mb(max(rss["c_default"]))))
    floor_same = med["a_" + enc["tf"]]
    line = "%d pods: (c) %s, peak RSS %s; (c)/(a, %s) = %.2f" % (
        n, fmt_ms(med["c_tf"]), mb(max(rss["c_tf"] + rss["c_default"])), enc["tf"],
        med["c_tf"] / floor_same)
    print("ratio (c)/(a) with the same encoding: %.2f (target <= 2)" % (med["c_tf"] / floor_same))
    if t["b_proc"]:
        print("ratio (b)/(c): %.0fx in-process call, %.0fx whole processes (target >= 30)"
              % (med["b_call"] / med["c_tf"], med["b_proc"] / med["c_tf"]))
        line += "; (b)/(c) = %.0fx (call), %.0fx (process)" % (
            med["b_call"] / med["c_tf"], med["b_proc"] / med["c_tf"])
    ok = ok_default and same is not False
    line += "" if ok else "  [WRONG ANSWER]"
    print("rounds: %d (a, c), %d (b)" % (a.rounds, len(t["b_proc"])))
    print()
    return line


if __name__ == "__main__":
    main()
