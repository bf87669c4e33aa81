#!/usr/bin/env python3
"""A loopback Kubernetes API server for the benchmark: N pods made from one
real pod (pod-template.json, recorded from kube-apiserver v1.20.2 by
record-pod.sh), every answer rendered before the first request, so the
server costs no more than copying bytes to a socket.

  podserver.py --pods N [--port P] [--limits 500,0] [--gzip] [--namespace NS]

Answers, as kube-apiserver does:
  GET /api/v1/namespaces/NS/pods?labelSelector=job-name%3Dtensorflow[&limit=L[&continue=T]]
  GET /api/v1/pods?labelSelector=...                       (all namespaces)
Pages are in etcd key order (namespace, then pod name as a plain string),
carry metadata.continue (an opaque token) until the last one, and no
remainingItemCount (the real server leaves it out under a label selector).
limit=0 or no limit is the whole list in one answer (what TF asks for).
A label selector other than job-name=tensorflow matches nothing.
With --gzip, clients that send Accept-Encoding: gzip get a gzip body
(compressed once, beforehand, at level 1 as kube-apiserver does), as
kube-apiserver 1.20 does for answers over 128 KiB.
Only the limits given by --limits are served (others: 400), so no answer is
ever rendered while a client waits.

Prints "ready PORT" on stdout when it listens.  GET /stats prints counters
(requests, bytes, gzip answers) since the last GET /stats.
"""
import argparse
import base64
import copy
import gzip
import http.server
import json
import random
import socket
import socketserver
import sys
import threading
import urllib.parse
import uuid

SELECTOR = "job-name=tensorflow"


def make_pods(n, template, namespace, gpus, nodes_per):
    rnd = random.Random(1)
    pods = []
    nodes = max(1, n // nodes_per)
    for i in range(n):
        p = copy.deepcopy(template)
        md, st, sp = p["metadata"], p["status"], p["spec"]
        name = "tensorflow-worker-%d" % i
        md["name"] = name
        md["namespace"] = namespace
        md["uid"] = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
        md["resourceVersion"] = str(100000 + 2 * i)
        md["labels"] = {"app": "tensorflow", "index": str(i),
                        "job-name": "tensorflow"}
        node = i % nodes
        sp["nodeName"] = "gpu-node-%04d" % node
        for c in sp.get("containers", []):
            for k in ("limits", "requests"):
                if "nvidia.com/gpu" in c.get("resources", {}).get(k, {}):
                    c["resources"][k]["nvidia.com/gpu"] = str(gpus)
        ip = i + 256
        st["podIP"] = "10.%d.%d.%d" % ((ip >> 16) & 255, (ip >> 8) & 255, ip & 255)
        st["podIPs"] = [{"ip": st["podIP"]}]
        h = node + 1
        st["hostIP"] = "172.%d.%d.%d" % (16 + (h >> 16), (h >> 8) & 255, h & 255)
        pods.append((namespace, name, json.dumps(p, separators=(",", ":"))))
    pods.sort(key=lambda t: (t[0], t[1]))   # etcd key order
    return pods


def token(rv, last):
    t = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": last + "\u0000"},
                   separators=(",", ":"))
    return base64.urlsafe_b64encode(t.encode()).decode().rstrip("=")


def render(pods, limit, rv, use_gzip):
    """{continue-token or "": (identity bytes, gzip bytes or None)}"""
    out = {}
    step = limit if limit > 0 else len(pods) or 1
    starts = list(range(0, len(pods), step)) or [0]
    for k, s in enumerate(starts):
        chunk = pods[s:s + step]
        md = {"resourceVersion": str(rv)}
        if k + 1 < len(starts):
            md["continue"] = token(rv, chunk[-1][1])
        head = json.dumps({"kind": "PodList", "apiVersion": "v1", "metadata": md},
                          separators=(",", ":"))[:-1]
        body = (head + ',"items":[' + ",".join(p[2] for p in chunk) + "]}\n").encode()
        key = "" if k == 0 else token(rv, pods[s - 1][1])
        out[key] = (body, gzip.compress(body, 1) if use_gzip else None)
    return out


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.requests = self.bytes = self.gzip = 0
        self.paths = {}

    def add(self, n, gz):
        with self.lock:
            self.requests += 1
            self.bytes += n
            self.gzip += 1 if gz else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pods", type=int, required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--limits", default="500,0")
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("--namespace", default="training")
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--pods-per-node", type=int, default=1)
    ap.add_argument("--template", default=__file__.rsplit("/", 1)[0] + "/pod-template.json")
    a = ap.parse_args()

    template = json.load(open(a.template))
    pods = make_pods(a.pods, template, a.namespace, a.gpus, a.pods_per_node)
    rv = 100000 + 2 * a.pods
    pages = {}
    for lim in (int(x) for x in a.limits.split(",")):
        pages[lim] = render(pods, lim, rv, a.gzip)
    empty = render([], 0, rv, a.gzip)
    del pods
    stats = Stats()
    sys.stderr.write("podserver: %d pods, %d bytes per pod on average, limits %s\n" % (
        a.pods, sum(len(b) for b, _ in pages[max(pages)].values()) // max(1, a.pods),
        ",".join(map(str, pages))))

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def setup(self):
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def send(self, code, body, gz=None):
            # Status line, headers and body in one write on a TCP_NODELAY
            # socket: a separate small header write would meet the client's
            # delayed ACK (Nagle), 40 ms per request, a server artefact.
            use = gz is not None and "gzip" in self.headers.get("Accept-Encoding", "")
            data = gz if use else body
            head = ["HTTP/1.1 %d %s" % (code, "OK" if code == 200 else "Error"),
                    "Content-Type: application/json",
                    "Cache-Control: no-cache, private",
                    "Content-Length: %d" % len(data)]
            if use:
                head += ["Content-Encoding: gzip", "Vary: Accept-Encoding"]
            self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
            stats.add(len(data), use)

        def status(self, code, reason, msg):
            self.send(code, json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {},
                                        "status": "Failure", "message": msg,
                                        "reason": reason, "code": code}).encode())

        def do_GET(self):
            u = urllib.parse.urlsplit(self.path)
            q = dict(urllib.parse.parse_qsl(u.query))
            if u.path == "/stats":
                with stats.lock:
                    s = {"requests": stats.requests, "bytes": stats.bytes, "gzip": stats.gzip}
                    stats.reset()
                return self.send(200, json.dumps(s).encode())
            ns_path = "/api/v1/namespaces/%s/pods" % a.namespace
            if u.path not in ("/api/v1/pods", ns_path):
                if u.path.startswith("/api/v1/namespaces/") and u.path.endswith("/pods"):
                    return self.send(200, *empty[""])
                return self.status(404, "NotFound", "the server could not find the requested resource")
            lim = int(q.get("limit", "0") or 0)
            if q.get("labelSelector", "") != SELECTOR:
                return self.send(200, *empty[""])
            if lim not in pages:
                return self.status(400, "BadRequest", "podserver: limit=%d not pre-rendered" % lim)
            page = pages[lim].get(q.get("continue", ""))
            if page is None:
                return self.status(410, "Expired", "The provided continue parameter is too old")
            self.send(200, *page)

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True
        request_queue_size = 64

    srv = Server(("127.0.0.1", a.port), Handler)
    print("ready %d" % srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
