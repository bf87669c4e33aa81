#!/usr/bin/env python3
"""The gce plugin's benchmark (issue 4, "Performance"): 1,000 RUNNING
instances in 4 instance groups (plus 250 instances in no group, in the same
zone) served by the tests' loopback fake (tests/gce/fake_gce.py: real-shaped
instances, `fields` applied, pages of at most 500), resolved by

  (a) `muster resolve` with the gce plugin (the real binary): project,
      zone, token and own name from the metadata server, one listInstances
      per group and page, one instances.list per zone and page;
  (b) TensorFlow's request pattern, 1 + N + pages (tf_pattern.py), on one
      kept-alive connection.

Both in `order = "ip"` so the answers can be compared (they must be equal).
The fake renders each answer once (--cache), for both; round 0 warms
it and is not counted.  Rounds are interleaved (a, b, a, b, ...);
medians reported, with the
requests each made (counted by the server).

  bench.py --build BUILDDIR [--rounds 7] [--instances 1000] [--groups 4]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))


def wait_port(path, proc):
    for _ in range(400):
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return int(open(path).read())
        if proc.poll() is not None:
            sys.exit("bench: the fake server died")
        time.sleep(0.025)
    sys.exit("bench: the fake server did not start")


def count(log):
    if not os.path.exists(log):
        return 0
    with open(log) as f:
        n = sum(1 for _ in f)
    open(log, "w").close()
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--instances", type=int, default=1000)
    ap.add_argument("--groups", type=int, default=4)
    a = ap.parse_args()

    muster = os.path.join(a.build, "cli/.libs/muster")
    if not os.access(muster, os.X_OK):
        muster = os.path.join(a.build, "cli/muster")
    env = dict(os.environ)
    env["MUSTER_PLUGIN_PATH"] = os.path.join(a.build, "plugins/gce/.libs")
    env["LD_LIBRARY_PATH"] = os.path.join(a.build, "core/.libs")
    for k in ("GOOGLE_APPLICATION_CREDENTIALS", "http_proxy", "HTTP_PROXY"):
        env.pop(k, None)
    tmp = tempfile.mkdtemp(prefix="muster-bench-gce.")
    log = os.path.join(tmp, "requests.log")
    portfile = os.path.join(tmp, "port")
    srv = subprocess.Popen([sys.executable, os.path.join(SRC, "tests/gce/fake_gce.py"),
                            "--scenario", "big:%d:%d" % (a.instances, a.groups),
                            "--self-name", "tf-1-7", "--cache", "--port-file", portfile, "--log", log])
    try:
        port = wait_port(portfile, srv)
        hostport = "127.0.0.1:%d" % port
        env["GCE_METADATA_HOST"] = hostport
        with open(os.path.join(tmp, "dmi"), "w") as f:
            f.write("Google Compute Engine\n")
        groups = ["tf-group-%d" % g for g in range(a.groups)]
        conf = os.path.join(tmp, "muster.conf")
        with open(conf, "w") as f:
            f.write('chain = ( { plugin = "gce"; timeout_ms = 60000; config = {\n'
                    '  compute_endpoint = "http://%s/compute/v1";\n'
                    '  dmi_product_name = "%s";\n'
                    '  jobs = { worker = [%s]; }; order = "ip"; }; } );\n'
                    % (hostport, os.path.join(tmp, "dmi"),
                       ", ".join('"%s"' % g for g in groups)))
        mus_cmd = [muster, "-c", conf, "resolve"]
        if os.environ.get("BENCH_DEBUG"):
            mus_cmd.insert(1, "-vv")
        tf_cmd = [sys.executable, os.path.join(HERE, "tf_pattern.py"), hostport,
                  "muster-test", "us-central1-a", "8470"] + groups
        times = {"muster": [], "tf": []}
        reqs = {}
        answers = {}
        count(log)
        for r in range(a.rounds + 1):  # round 0 warms caches, not counted
            for name, cmd in (("muster", mus_cmd), ("tf", tf_cmd)):
                t = time.perf_counter()
                p = subprocess.run(cmd, env=env, capture_output=True)
                wall = time.perf_counter() - t
                if os.environ.get("BENCH_DEBUG") and name == "muster":
                    sys.stderr.write(p.stderr.decode(errors="replace"))
                if p.returncode != 0:
                    sys.exit("bench: %s failed: %s" % (name, p.stderr.decode(errors="replace")))
                n = count(log)
                if r:
                    times[name].append(wall)
                reqs[name] = n
                answers[name] = json.loads(p.stdout)["cluster"]["worker"] if name == "muster" \
                    else json.loads(p.stdout)["worker"]
        same = answers["muster"] == answers["tf"]
        tasks = len(answers["muster"])
        m, t = statistics.median(times["muster"]), statistics.median(times["tf"])
        print("gce: %d instances in %d groups (+%d in no group), %d rounds, medians"
              % (a.instances, a.groups, a.instances // 4, a.rounds))
        print("| contender | requests | wall (ms) | tasks |")
        print("|---|---:|---:|---:|")
        print("| muster resolve (gce plugin) | %d | %.1f | %d |" % (reqs["muster"], m * 1000, tasks))
        print("| TF's pattern, 1 + N + pages (tf_pattern.py) | %d | %.1f | %d |"
              % (reqs["tf"], t * 1000, len(answers["tf"])))
        print("speed-up: %.1fx; requests: %.1fx fewer; same ClusterSpec: %s"
              % (t / m, reqs["tf"] / reqs["muster"], "yes" if same else "NO"))
        if not same:
            sys.exit(1)
    finally:
        srv.terminate()
        srv.wait()
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


if __name__ == "__main__":
    main()
