#!/usr/bin/env python3
"""muster watch's latency and idle CPU against a real kube-apiserver
(issue 16, "Performance"; README.md beside this file).

Three observers follow the same job on the same server, side by side:
  raw     curl reading the API's `?watch=1` stream (the floor);
  muster  `muster watch --settle-ms 0`, the kubernetes plugin;
  tf      TensorFlow's cluster_spec() polled every 1 s (tf_poll.py).
Each child's stdout is read by a thread of its own that timestamps a line
(CLOCK_MONOTONIC) as soon as the read that completes it returns.

Each of CHANGES cycles creates a Pending pod, turns it Running with a
status PATCH, then deletes it (gracePeriodSeconds=0: there is no kubelet);
every step waits for all observers (bounded) and a random 0-1 s pause
puts the changes at random points of the poller's second.

  bench.py --build BUILDDIR --api URL --ca FILE --token T --kubeconfig FILE
           [--changes 200] [--pods 16] [--idle-s 60] [--samples FILE]
"""
import argparse
import http.client
import json
import math
import os
import random
import re
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = os.environ.get("BENCH_PYTHON", "/usr/bin/python3")
NS = "bench-watch"
LABEL = "watch-bench"
SELECTOR = "job-name=" + LABEL
PORT = 8470
WAIT_S = 5.0  # the most a step waits for its observers


def ips(i):
    """Pod i's pod IP and host IP: RFC 2544's benchmarking range, which
    nothing here connects to (pods are API objects only)."""
    a, b = divmod(i, 250)
    return "198.18.%d.%d" % (a, b + 1), "198.19.%d.%d" % (a, b + 1)


class Api:
    """One kept-alive HTTPS connection to the API server."""

    def __init__(self, url, ca, token):
        u = urllib.parse.urlsplit(url)
        self.conn = http.client.HTTPSConnection(
            u.hostname, u.port, context=ssl.create_default_context(cafile=ca))
        self.auth = "Bearer " + token

    def call(self, method, path, body=None, ctype="application/json"):
        """(status, body, seconds just before the request was sent,
        seconds once the whole answer was read)."""
        h = {"Authorization": self.auth, "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            h["Content-Type"] = ctype
        sent = time.monotonic()
        self.conn.request(method, path, data, h)
        r = self.conn.getresponse()
        out = r.read()
        return r.status, out, sent, time.monotonic()

    def must(self, ok, method, path, body=None, ctype="application/json"):
        st, out, sent, done = self.call(method, path, body, ctype)
        if st not in ok:
            sys.exit("%s %s: HTTP %d %s" % (method, path, st, out[:300]))
        return sent, done


def pod_body(name):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NS, "labels": {"job-name": LABEL}},
            "spec": {"nodeName": "fake-node-0", "restartPolicy": "Never",
                     "containers": [{"name": "worker", "image": "busybox:latest",
                                     "resources": {"limits": {"nvidia.com/gpu": "1"},
                                                   "requests": {"nvidia.com/gpu": "1"}}}]}}


def running_patch(i):
    ip, host = ips(i)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return {"status": {"phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
                       "hostIP": host, "startTime": now}}


class Observer:
    """A child whose stdout lines become (kind, pod) events, each stamped
    with the time the line was read."""

    def __init__(self, name, argv, env, parse, events, stderr=None):
        self.name, self.parse, self.events = name, parse, events
        self.proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=stderr,
                                     bufsize=0)
        self.lines = 0
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        fd, buf = self.proc.stdout.fileno(), b""
        while True:
            chunk = os.read(fd, 1 << 16)
            t = time.monotonic()
            if not chunk:
                return
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                if line.strip():
                    self.lines += 1
                    for kind, pod in self.parse(json.loads(line)):
                        self.events.put(self.name, kind, pod, t)

    def cpu_ticks(self):
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Events:
    """The first time each observer saw each (kind, pod)."""

    def __init__(self):
        self.seen, self.cond = {}, threading.Condition()

    def put(self, who, kind, pod, t):
        with self.cond:
            self.seen.setdefault((who, kind, pod), t)
            self.cond.notify_all()

    def wait(self, keys, timeout):
        """{key: time} for the keys seen within the timeout."""
        until = time.monotonic() + timeout
        with self.cond:
            while not all(k in self.seen for k in keys):
                left = until - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(left)
            return {k: self.seen[k] for k in keys if k in self.seen}


def parse_raw(ev):
    """A watch event: ADDED, Running, deleted (the first of the MODIFIED
    that sets deletionTimestamp and the DELETED that follows) of a pod."""
    obj = ev.get("object", {})
    meta = obj.get("metadata", {})
    name = meta.get("name")
    if ev.get("type") == "DELETED" or meta.get("deletionTimestamp"):
        return [("del", name)]
    out = [("add", name)] if ev.get("type") == "ADDED" else []
    if obj.get("status", {}).get("phase") == "Running":
        out.append(("run", name))
    return out


def parse_cluster(pods_by_ip):
    """muster's and tf_poll.py's lines hold the whole cluster: the change is
    the difference of its addresses (a task index says nothing of a pod:
    muster's natural order puts a new pod anywhere), back to pod names."""
    last = set()

    def parse(line):
        nonlocal last
        now = set(a.rsplit(":", 1)[0] for a in (line.get("cluster") or {}).get("worker", []))
        out = [("run", pods_by_ip.get(h)) for h in now - last]
        out += [("del", pods_by_ip.get(h)) for h in last - now]
        last = now
        return out
    return parse


def percentile(xs, p):
    """Nearest rank."""
    s = sorted(xs)
    return s[max(0, math.ceil(p / 100.0 * len(s)) - 1)]


def summary(xs):
    if not xs:
        return "no samples"
    return "median %7.1f ms  p99 %7.1f ms  max %7.1f ms  (n=%d)" % (
        1e3 * statistics.median(xs), 1e3 * percentile(xs, 99), 1e3 * max(xs), len(xs))


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--api", required=True)
    ap.add_argument("--ca", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--kubeconfig", required=True)
    ap.add_argument("--changes", type=int, default=int(os.environ.get("BENCH_CHANGES", "200")))
    ap.add_argument("--pods", type=int, default=int(os.environ.get("BENCH_PODS", "16")))
    ap.add_argument("--idle-s", type=float, default=float(os.environ.get("BENCH_IDLE_S", "60")))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", default=os.environ.get("BENCH_SAMPLES"),
                    help="write each change's times here, one JSON object a line")
    a = ap.parse_args()
    random.seed(a.seed)
    # Reader threads take the GIL back quickly once their read returns.
    sys.setswitchinterval(0.0005)

    api = Api(a.api, a.ca, a.token)
    api.must((201, 409), "POST", "/api/v1/namespaces",
             {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    pods = "/api/v1/namespaces/%s/pods" % NS
    api.must((200,), "DELETE", pods + "?gracePeriodSeconds=0")
    for _ in range(100):
        _, out, _, _ = api.call("GET", pods)
        if not json.loads(out)["items"]:
            break
        time.sleep(0.1)
    names = ["w-%d" % i for i in range(a.pods)] + ["c-%d" % k for k in range(a.changes)]
    pods_by_ip = {ips(i)[0]: n for i, n in enumerate(names)}
    pods_by_host = {ips(i)[1]: n for i, n in enumerate(names)}
    for i in range(a.pods):
        api.must((201,), "POST", pods, pod_body(names[i]))
        api.must((200,), "PATCH", "%s/%s/status" % (pods, names[i]), running_patch(i),
                 "application/merge-patch+json")

    tmp = tempfile.mkdtemp(prefix="muster-bench-watch.")
    kconf, sconf = os.path.join(tmp, "k8s.conf"), os.path.join(tmp, "static.conf")
    with open(kconf, "w") as f:
        f.write('chain = ( { plugin = "kubernetes"; watch_interval_ms = 86400000; config = {\n'
                '  server = "%s"; ca_file = "%s"; token = "%s";\n'
                '  namespace = "%s"; jobs = { worker = ["%s"]; }; port = %d; }; } );\n'
                % (a.api, a.ca, a.token, NS, SELECTOR, PORT))
    with open(sconf, "w") as f:
        f.write('chain = ( { plugin = "static"; config = { jobs = { worker = ["%s:%d"]; }; }; } );\n'
                % (ips(0)[0], PORT))
    muster = os.path.join(a.build, "cli/.libs/muster")
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(a.build, "core/.libs"),
               MUSTER_PLUGIN_PATH=os.path.join(a.build, "plugins/kubernetes/.libs"))
    for k in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "POD_NAME", "TF_CONFIG", "MUSTER_CONF"):
        env.pop(k, None)
    py_env = dict(env, KUBECONFIG=a.kubeconfig)
    py_env.pop("LD_LIBRARY_PATH")

    ev = Events()
    werr = open(os.path.join(tmp, "muster.err"), "w+")
    url = "%s%s?labelSelector=%s&watch=1&timeoutSeconds=3600" % (
        a.api, pods, urllib.parse.quote(SELECTOR))
    obs = [
        Observer("raw", ["curl", "-sSN", "--cacert", a.ca, "-H", "Authorization: Bearer " + a.token,
                         "-H", "Accept: application/json", url], env, parse_raw, ev),
        Observer("muster", [muster, "-c", kconf, "-v", "watch", "--settle-ms", "0"], env,
                 parse_cluster(pods_by_ip), ev, stderr=werr),
        Observer("tf", [PYTHON, os.path.join(HERE, "tf_poll.py"), SELECTOR, str(PORT)], py_env,
                 parse_cluster(pods_by_host), ev),
    ]
    static = Observer("static", [muster, "-c", sconf, "watch", "--settle-ms", "0"], env,
                      lambda line: [], ev)
    try:
        first = ev.wait([(o.name, "run", names[i]) for o in obs for i in range(a.pods)], 60)
        if len(first) < 3 * a.pods:
            sys.exit("the observers did not all see the %d pods within 60 s: %s"
                     % (a.pods, sorted(set(k[0] for k in first))))
        print("%d pods Running; %d changes; load average %s" % (a.pods, a.changes, loadavg()),
              flush=True)
        lat = {(o.name, kind, frm): [] for o in obs for kind in ("run", "del")
               for frm in ("resp", "sent")}
        gap = {"run": [], "del": []}
        samples = open(a.samples, "w") if a.samples else None
        missed = 0
        for k in range(a.changes):
            i, name = a.pods + k, names[a.pods + k]
            api.must((201,), "POST", pods, pod_body(name))
            # muster's resolve answers tryagain for the Pending pod: one stderr line.
            ev.wait([("raw", "add", name)], WAIT_S)
            t_end = time.monotonic() + WAIT_S
            while ("for %s:" % name) not in open(werr.name).read() and time.monotonic() < t_end:
                time.sleep(0.005)
            for kind in ("run", "del"):
                time.sleep(random.random())
                if kind == "run":
                    sent, done = api.must((200,), "PATCH", "%s/%s/status" % (pods, name),
                                          running_patch(i), "application/merge-patch+json")
                else:
                    sent, done = api.must((200,), "DELETE",
                                          "%s/%s?gracePeriodSeconds=0" % (pods, name))
                seen = ev.wait([(o.name, kind, name) for o in obs], WAIT_S + 1.5)
                missed += 3 - len(seen)
                for (who, _, _), t in seen.items():
                    lat[(who, kind, "resp")].append(t - done)
                    lat[(who, kind, "sent")].append(t - sent)
                if ("raw", kind, name) in seen and ("muster", kind, name) in seen:
                    gap[kind].append(seen[("muster", kind, name)] - seen[("raw", kind, name)])
                if samples:
                    samples.write(json.dumps(dict({w: t - done for (w, _, _), t in seen.items()},
                                                  pod=name, kind=kind, sent=sent - done,
                                                  at=done, load=loadavg())) + "\n")
            if (k + 1) % 50 == 0:
                print("  %d/%d changes, load average %s" % (k + 1, a.changes, loadavg()),
                      flush=True)
        if samples:
            samples.close()
        print("load average after the changes: %s" % loadavg())
        for kind, what in (("run", "pod turned Running (status PATCH)"),
                           ("del", "pod deleted (DELETE, gracePeriodSeconds=0)")):
            print("\n%s, from the API's answer to the observer's line:" % what)
            for o in obs:
                print("  %-7s %s" % (o.name, summary(lat[(o.name, kind, "resp")])))
            print("  muster - raw, change by change: %s" % summary(gap[kind]))
            print("  from just before the request was sent:")
            for o in obs:
                print("  %-7s %s" % (o.name, summary(lat[(o.name, kind, "sent")])))
        if missed:
            print("\n%d observations missed the %.1f s bound" % (missed, WAIT_S + 1.5))

        time.sleep(2)
        idle = obs + [static]
        hz = os.sysconf("SC_CLK_TCK")
        before, t0 = [o.cpu_ticks() for o in idle], time.monotonic()
        time.sleep(a.idle_s)
        after, wall = [o.cpu_ticks() for o in idle], time.monotonic() - t0
        print("\nidle CPU over %.0f s, nothing changing (utime+stime, load average %s):"
              % (wall, loadavg()))
        labels = {"raw": "curl, the raw stream", "muster": "muster watch (kubernetes)",
                  "tf": "TF cluster_spec() every 1 s", "static": "muster watch (static config)"}
        for o, b, e in zip(idle, before, after):
            print("  %-30s %6.3f %%  (%d ticks of 1/%d s)" % (
                labels[o.name], 100.0 * (e - b) / hz / wall, e - b, hz))
        # -v: each resolve's own time, which is what muster adds to the stream.
        werr.seek(0)
        took = [int(m) / 1e3 for m in re.findall(r": success \((\d+) ms\)", werr.read())]
        print("\nmuster's resolves after an event (its -v log, whole ms): %s"
              % summary(took[1:]))
    finally:
        for o in obs + [static]:
            o.stop()
        api.call("DELETE", pods + "?gracePeriodSeconds=0")
        werr.close()
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
