#!/usr/bin/env python3
"""A loopback stand-in for kube-apiserver's pod listing, for the kubernetes
plugin's tests.

It answers GET /api/v1/namespaces/NS/pods and GET /api/v1/pods as the real
API server does: PodList JSON built from a pod recorded from a real
kube-apiserver (fixtures/pod.json), label selectors parsed and applied
(equality, inequality, set-based, existence), `limit`/`continue` paging,
Status objects for errors, gzip when the client accepts it, HTTP/1.1
keep-alive.  TLS (server certificate, optionally a required client
certificate) or plain http, as `kubectl proxy` serves.

--scenario picks the pods, --mode adds faults (comma-separated):
  slow        sleep 3 s before each answer
  slowwatch   sleep 30 s before answering a watch's own requests (a
              one-item listing, limit=1, or a watch=1 stream)
  garbage     answer 200 with an HTML page
  truncated   answer 200 with the PodList cut in half (Content-Length right)
  short       promise the whole PodList, send half, close the connection
  wrongtypes  items[2].status.podIP is a number
  itemsobject items is an object
  forbidden   403 with RBAC's Status message
  notfound    404 with the API's Status message
  expire      the first request that carries a continue token gets 410 Gone
  gonewatch   every watch=1 stream but the first gets 410 Gone at once
  samecontinue, cyclecontinue, endless: listings that never end (loop_token)
  identity    never compress, whatever the client accepts
  gzipmembers compress as two gzip members, one after the other
  badgzip     a gzip answer whose checksum is wrong
  brotli      Content-Encoding: br (not asked for)
  bomb        200 with 65 MiB of spaces, gzipped (65 KB on the wire)
  longip      every pod IP is 155 bytes long (no address is; a server may say so)
  badip       pods tensorflow-worker-1..3 have pod IPs no address can hold
              (with a port, in brackets, with an escape sequence)
  badgateway  502 with a proxy's HTML error page
A mode written MODE@N applies to page N alone (pages count from 1 within
a listing: `continue` offset / `limit` + 1), so that a fault can strike a
listing midway, while the page before is still being read.
--token-file FILE: the bearer token required (read again on every request,
so tests can rotate it); a wrong or missing token gets 401.
--pending-polls N: in scenario "pending", pods are Pending for the first N
full listings (requests without a continue token), Running after.
Every request is logged as one JSON line to --log.
"""
import argparse
import base64
import copy
import gzip
import http.server
import json
import os
import re
import socket
import ssl
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))


def status(code, reason, message):
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}


# ---------------------------------------------------------------- pods

class PodMaker:
    def __init__(self, template):
        self.t = template
        self.serial = 0

    def make(self, name, ns="default", labels=None, phase="Running", pod_ip=None,
             host_ip=None, containers=None, init_containers=None, deleting=False):
        self.serial += 1
        p = copy.deepcopy(self.t)
        m = p["metadata"]
        m["name"] = name
        m["namespace"] = ns
        m["uid"] = "c85d2a29-96b1-4195-af75-%012x" % self.serial
        m["resourceVersion"] = str(15310 + self.serial)
        m["labels"] = dict(labels or {})
        m["annotations"] = {"kubectl.kubernetes.io/default-container":
                            (containers or [{"name": "worker"}])[0]["name"]}
        if deleting:
            m["deletionTimestamp"] = "2026-11-21T20:20:00Z"
            m["deletionGracePeriodSeconds"] = 30
        base = p["spec"]["containers"][0]
        cs = []
        for c in containers or [{"name": "worker"}]:
            cc = copy.deepcopy(base)
            cc["name"] = c["name"]
            res = {"cpu": "1", "memory": "1Gi"}
            res.update(c.get("resources", {}))
            cc["resources"] = {"limits": dict(res), "requests": dict(res)}
            if "ports" in c:
                cc["ports"] = [{"name": n, "containerPort": v, "protocol": "TCP"}
                               for n, v in c["ports"]]
            cs.append(cc)
        p["spec"]["containers"] = cs
        if init_containers:
            ics = []
            for c in init_containers:
                cc = copy.deepcopy(base)
                cc["name"] = c["name"]
                res = {"cpu": "100m"}
                res.update(c.get("resources", {}))
                cc["resources"] = {"limits": dict(res), "requests": dict(res)}
                if c.get("sidecar"):
                    cc["restartPolicy"] = "Always"
                ics.append(cc)
            p["spec"]["initContainers"] = ics
        st = p["status"]
        st["phase"] = phase
        if phase == "Pending":
            for k in ("podIP", "podIPs", "startTime"):
                st.pop(k, None)
            st["conditions"] = [{"type": "PodScheduled", "status": "True",
                                 "lastProbeTime": None,
                                 "lastTransitionTime": "2026-11-21T20:16:26Z"}]
            st["containerStatuses"] = [{"name": c["name"], "state": {"waiting": {
                "reason": "ContainerCreating"}}, "lastState": {}, "ready": False,
                "restartCount": 0, "image": "busybox:latest", "imageID": "",
                "started": False} for c in cs]
        else:
            if pod_ip is not None:
                st["podIP"] = pod_ip
                st["podIPs"] = [{"ip": pod_ip}]
            st["containerStatuses"] = [dict(st["containerStatuses"][0], name=c["name"])
                                       for c in cs]
        if host_ip is not None:
            st["hostIP"] = host_ip
            st["hostIPs"] = [{"ip": host_ip}]
        return p


def scenario_pods(name, mk, running):
    """The pods of a scenario; `running` False makes the designated ones Pending."""
    pods = []
    if name in ("tensorflow", "pending", "ipv6"):
        v6 = name == "ipv6"
        for i in range(12):
            pending = name == "pending" and not running and i in (3, 7)
            pods.append(mk.make(
                "tensorflow-worker-%d" % i,
                labels={"job-name": "tensorflow", "app": "trainer", "replica": "worker",
                        "index": str(i)},
                phase="Pending" if pending else "Running",
                pod_ip=("fd00:10:244::%x" % (16 + i)) if v6 else "10.244.1.%d" % (10 + i),
                host_ip=("fd00:192:168::%d" % (1 + i % 3)) if v6 else "192.168.0.%d" % (1 + i % 3),
                containers=[{"name": "tensorflow", "ports": [("tfjob-port", 2222)]}]))
        for i in range(2):
            pods.append(mk.make(
                "tensorflow-ps-%d" % i,
                labels={"job-name": "ps", "app": "ps", "tier": "web" if i else "db"},
                pod_ip="10.244.2.%d" % (10 + i), host_ip="192.168.0.9",
                containers=[{"name": "tensorflow", "ports": [("metrics", 9090)]}]))
        pods.append(mk.make(
            "tensorflow-eval-0",
            labels={"job-name": "eval", "app": "eval", "canary": "true", "tier": "web"},
            pod_ip="10.244.3.10", host_ip="192.168.0.9"))
        # Same name, another namespace: only all_namespaces sees it.
        pods.append(mk.make(
            "tensorflow-worker-0", ns="other",
            labels={"job-name": "tensorflow", "app": "trainer"},
            pod_ip="10.244.9.10", host_ip="192.168.0.7"))
    elif name == "kubeflow":
        kf = "training.kubeflow.org/"

        def kfpod(job, rtype, i, port, ns="kf", phase="Running"):
            return mk.make(
                "%s-%s-%d" % (job, rtype, i), ns=ns,
                labels={kf + "job-name": job, kf + "operator-name": "tfjob-controller",
                        kf + "replica-type": rtype, kf + "replica-index": str(i),
                        **({kf + "job-role": "master"} if rtype == "chief" else {})},
                phase=phase, pod_ip="10.244.5.%d" % (10 + mk.serial),
                host_ip="192.168.0.5",
                containers=[{"name": "tensorflow", "ports": [("tfjob-port", port)]}])
        pods.append(kfpod("mnist", "chief", 0, 2222))
        for i in (2, 0, 1):
            pods.append(kfpod("mnist", "worker", i, 2222))
        for i in range(2):
            pods.append(kfpod("mnist", "ps", i, 2223))
        # Dynamic workers: a gap at index 1.
        for i in (0, 2):
            pods.append(kfpod("dyn", "worker", i, 2222))
        # tf-operator 2021's short labels, no tfjob-port.
        for i in range(2):
            pods.append(mk.make(
                "old-worker-%d" % i, ns="kf",
                labels={"tf-job-name": "old", "group-name": "kubeflow.org",
                        "replica-type": "worker", "replica-index": str(i)},
                pod_ip="10.244.6.%d" % (10 + i), host_ip="192.168.0.6",
                containers=[{"name": "tensorflow"}]))
    elif name == "gpu":
        g = "nvidia.com/gpu"
        specs = [
            # plain: 8
            ([{"name": "tensorflow", "resources": {g: "8"}}], None),
            # two containers 4 + 4, a smaller init container: 8
            ([{"name": "tensorflow", "resources": {g: "4"}},
              {"name": "helper", "resources": {g: "4"}}],
             [{"name": "warmup", "resources": {g: "2"}}]),
            # init container needs more than the app: 4
            ([{"name": "tensorflow", "resources": {g: "2"}}],
             [{"name": "probe", "resources": {g: "4"}}]),
            # sidecar 1 + app 2 = 3; an init after the sidecar: 4 + 1 = 5
            ([{"name": "tensorflow", "resources": {g: "2"}}],
             [{"name": "proxy", "sidecar": True, "resources": {g: "1"}},
              {"name": "setup", "resources": {g: "4"}}]),
            # AMD and Intel count as GPU too: 2 + 1
            ([{"name": "tensorflow", "resources": {"amd.com/gpu": "2"}},
              {"name": "viz", "resources": {"gpu.intel.com/i915": "1"}}], None),
            # no accelerators at all
            ([{"name": "tensorflow"}], None),
        ]
        for i, (cs, ics) in enumerate(specs):
            pods.append(mk.make("gpu-worker-%d" % i, labels={"job-name": "gpu"},
                                pod_ip="10.244.7.%d" % (10 + i), host_ip="192.168.0.7",
                                containers=cs, init_containers=ics))
        pods.append(mk.make("tpu-worker-0", labels={"job-name": "tpu"},
                            pod_ip="10.244.8.10", host_ip="192.168.0.8",
                            containers=[{"name": "tensorflow",
                                         "resources": {"google.com/tpu": "4"}}]))
        pods.append(mk.make("bad-gpu-0", labels={"job-name": "badgpu"},
                            pod_ip="10.244.8.11", host_ip="192.168.0.8",
                            containers=[{"name": "tensorflow", "resources": {g: "half"}}]))
        pods.append(mk.make("gone-0", labels={"job-name": "gone"}, deleting=True,
                            pod_ip="10.244.8.12", host_ip="192.168.0.8"))
    elif name == "many":
        for i in range(1, 31):
            pods.append(mk.make("w-%d" % i, labels={"job-name": "many"},
                                pod_ip="10.1.0.%d" % i, host_ip="192.168.1.1"))
    return pods


# ---------------------------------------------------------------- selectors

REQ = re.compile(r"^\s*(!)?\s*([A-Za-z0-9_./-]+)\s*(?:(=|==|!=)\s*([A-Za-z0-9_.-]*)|"
                 r"\s(in|notin)\s*\(([^)]*)\))?\s*$")


def split_selector(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [x for x in out if x.strip()]


def parse_selector(s):
    reqs = []
    for part in split_selector(s):
        m = REQ.match(part)
        if not m or (m.group(1) and (m.group(3) or m.group(5))):
            raise ValueError("unable to parse requirement: %r" % part)
        neg, key, op, val, setop, vals = m.groups()
        if neg:
            reqs.append(("!", key, None))
        elif op:
            reqs.append(("!=" if op == "!=" else "=", key, val))
        elif setop:
            reqs.append((setop, key, {v.strip() for v in vals.split(",")}))
        else:
            reqs.append(("exists", key, None))
    return reqs


def matches(reqs, labels):
    for op, key, val in reqs:
        have = labels.get(key)
        if op == "=" and have != val:
            return False
        if op == "!=" and have == val:
            return False
        if op == "in" and have not in val:
            return False
        if op == "notin" and have in val:
            return False
        if op == "exists" and have is None:
            return False
        if op == "!" and have is not None:
            return False
    return True


# ---------------------------------------------------------------- paging loops

def loop_token(st, offset, limit):
    """The continue token of a listing that never ends, or None:
    samecontinue   one token on every page, the first included, forever;
    cyclecontinue  two tokens in turn, forever;
    endless        a fresh token on every page, forever."""
    step = limit or 1
    start = None
    if st.fault("samecontinue", None):
        start = step
    elif st.fault("cyclecontinue", None):
        start = 2 * step if offset == step else step
    elif st.fault("endless", None):
        start = offset + step
    if start is None:
        return None
    return base64.b64encode(json.dumps({"start": start, "rv": st.rv}).encode()).decode()


# ---------------------------------------------------------------- server

class State:
    def __init__(self, args):
        self.args = args
        # mode -> the page it strikes (None: every page)
        self.modes = {}
        for m in filter(None, args.mode.split(",")):
            name, _, page = m.partition("@")
            self.modes[name] = int(page) if page else None
        with open(os.path.join(HERE, "fixtures", "pod.json")) as f:
            self.template = json.load(f)
        self.lock = threading.Lock()
        self.full_listings = 0
        self.expired = False
        self.watches = 0
        self.rv = 20000

    def fault(self, name, page):
        return name in self.modes and self.modes[name] in (None, page)

    def pods(self):
        running = self.full_listings > self.args.pending_polls
        return scenario_pods(self.args.scenario, PodMaker(self.template), running)

    def log(self, entry):
        if self.args.log:
            with self.lock, open(self.args.log, "a") as f:
                f.write(json.dumps(entry) + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-apiserver/1"

    def log_message(self, fmt, *a):
        pass

    def send_json(self, code, obj, raw=None, ctype="application/json", cut=None):
        st = self.server.state
        body = raw if raw is not None else json.dumps(obj, separators=(",", ":")).encode()
        if cut == "truncated":
            body = body[:len(body) // 2]
        encoding = None
        if "gzip" in self.headers.get("Accept-Encoding", "") and "identity" not in st.modes:
            encoding = "gzip"
            if "gzipmembers" in st.modes:
                body = gzip.compress(body[:len(body) // 3], 1) + gzip.compress(body[len(body) // 3:], 1)
            else:
                body = gzip.compress(body, 1)
            if "badgzip" in st.modes:
                body = body[:-8] + bytes([body[-8] ^ 0xff]) + body[-7:]
        if "brotli" in st.modes:
            encoding = "br"
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Audit-Id", "00000000-0000-0000-0000-000000000000")
        if cut == "short":
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        st = self.server.state
        a = st.args
        url = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        auth = self.headers.get("Authorization")
        entry = {"path": url.path, "query": {k: v[0] for k, v in q.items()},
                 "raw_query": url.query, "client_port": self.client_address[1],
                 "gzip": "gzip" in self.headers.get("Accept-Encoding", ""),
                 "user_agent": self.headers.get("User-Agent", ""),
                 "accept": self.headers.get("Accept", "")}
        try:
            if a.token_file:
                with open(a.token_file) as f:
                    want = f.read().strip()
                entry["auth"] = "ok" if auth == "Bearer " + want else (
                    "none" if auth is None else "bad")
                if entry["auth"] != "ok":
                    st.log(entry)
                    return self.send_json(401, status(401, "Unauthorized", "Unauthorized"))
            else:
                entry["auth"] = "none" if auth is None else "sent"
            if self.server.client_cn:
                entry["client_cn"] = self.server.client_cn(self.connection)
            cont = q.get("continue", [None])[0]
            limit = int(q.get("limit", ["0"])[0] or 0)
            offset = json.loads(base64.b64decode(cont))["start"] if cont else 0
            page_no = offset // limit + 1 if limit else 1
            if st.fault("slow", page_no):
                time.sleep(3)
            if st.fault("slowwatch", page_no) and (limit == 1 or "watch" in q):
                st.log(dict(entry, held=30))  # logged now: a test waits for it
                time.sleep(30)
            m = re.fullmatch(r"/api/v1/(?:namespaces/([^/]+)/)?pods", url.path)
            if not m:
                st.log(entry)
                return self.send_json(404, status(404, "NotFound",
                                                  "the server could not find the requested resource"))
            ns = urllib.parse.unquote(m.group(1)) if m.group(1) else None
            if st.fault("notfound", page_no):
                st.log(entry)
                return self.send_json(404, status(404, "NotFound",
                                                  "the server could not find the requested resource"))
            if st.fault("forbidden", page_no):
                st.log(entry)
                where = ('in the namespace "%s"' % ns) if ns else "at the cluster scope"
                return self.send_json(403, status(
                    403, "Forbidden",
                    'pods is forbidden: User "system:serviceaccount:default:nobody" cannot '
                    'list resource "pods" in API group "" ' + where))
            if st.fault("bomb", page_no):
                st.log(entry)
                return self.send_json(200, None, raw=b" " * (65 << 20))
            if st.fault("badgateway", page_no):
                st.log(entry)
                return self.send_json(502, None, raw=b"<html><head><title>502 Bad Gateway"
                                      b"</title></head><body><center><h1>502 Bad Gateway</h1>"
                                      b"</center><hr><center>nginx</center></body></html>\n",
                                      ctype="text/html")
            if st.fault("garbage", page_no):
                st.log(entry)
                return self.send_json(200, None, raw=b"<html><body><h1>Welcome to nginx!</h1>"
                                      b"</body></html>\n", ctype="text/html")
            try:
                reqs = parse_selector(q.get("labelSelector", [""])[0])
            except ValueError as e:
                st.log(entry)
                return self.send_json(400, status(400, "BadRequest", str(e)))
            if "watch" in q and st.fault("gonewatch", page_no):
                with st.lock:
                    st.watches += 1
                    gone = st.watches > 1
                if gone:
                    st.log(dict(entry, answer=410))
                    return self.send_json(410, status(
                        410, "Expired", "too old resource version: %d (%d)" % (st.rv, st.rv + 1)))
            if cont:
                if st.fault("expire", page_no) and not st.expired:
                    st.expired = True
                    st.log(dict(entry, answer=410))
                    return self.send_json(410, status(
                        410, "Expired", "The provided continue parameter is too old to "
                        "display a consistent list result. You can start a new list without "
                        "the continue parameter."))
            else:
                with st.lock:
                    st.full_listings += 1
            pods = [p for p in st.pods()
                    if (ns is None or p["metadata"]["namespace"] == ns)
                    and matches(reqs, p["metadata"]["labels"])]
            # The API server lists in key order: namespace/name.
            pods.sort(key=lambda p: (p["metadata"]["namespace"], p["metadata"]["name"]))
            page = pods[offset:offset + limit] if limit else pods[offset:]
            meta = {"resourceVersion": str(st.rv)}
            if limit and offset + limit < len(pods):
                meta["continue"] = base64.b64encode(json.dumps(
                    {"start": offset + limit, "rv": st.rv}).encode()).decode()
                meta["remainingItemCount"] = len(pods) - offset - limit
            looping = loop_token(st, offset, limit)
            if looping:
                meta["continue"] = looping
            if st.fault("longip", page_no):
                for p in page:
                    p["status"]["podIP"] = "fd00:" + "a" * 150
            if st.fault("badip", page_no):
                bad = {"tensorflow-worker-1": "10.244.1.11:99", "tensorflow-worker-2": "[fd00::12]",
                       "tensorflow-worker-3": "10.244.1.13\x1b[2J"}
                for p in page:
                    if p["metadata"]["name"] in bad and p["metadata"]["namespace"] == "default":
                        p["status"]["podIP"] = bad[p["metadata"]["name"]]
            if st.fault("wrongtypes", page_no) and len(page) > 2:
                page[2]["status"]["podIP"] = 42
            body = {"kind": "PodList", "apiVersion": "v1", "metadata": meta, "items": page}
            if st.fault("itemsobject", page_no):
                body["items"] = {}
            entry["items"] = len(page)
            st.log(entry)
            cut = ("truncated" if st.fault("truncated", page_no)
                   else "short" if st.fault("short", page_no) else None)
            return self.send_json(200, body, cut=cut)
        except (BrokenPipeError, ConnectionResetError):
            pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    client_cn = None


class Server6(Server):
    address_family = socket.AF_INET6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", default="tensorflow")
    ap.add_argument("--mode", default="")
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--client-ca")
    ap.add_argument("--token-file")
    ap.add_argument("--pending-polls", type=int, default=0)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    ap.add_argument("--ipv6", action="store_true")
    args = ap.parse_args()

    cls = Server6 if args.ipv6 else Server
    srv = cls(("::1" if args.ipv6 else "127.0.0.1", 0), Handler)
    srv.state = State(args)
    if args.cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.cert, args.key)
        if args.client_ca:
            ctx.verify_mode = ssl.CERT_REQUIRED
            ctx.load_verify_locations(args.client_ca)

            def cn(conn):
                for rdn in conn.getpeercert().get("subject", ()):
                    for k, v in rdn:
                        if k == "commonName":
                            return v
                return None
            srv.client_cn = cn
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, args.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
