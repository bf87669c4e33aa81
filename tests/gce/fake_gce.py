#!/usr/bin/env python3
"""A loopback stand-in for Google's endpoints, for the gce plugin's tests
and benchmark.  One plain-HTTP server plays three parts:

  /computeMetadata/v1/...   the GCE metadata server (needs and answers
                            "Metadata-Flavor: Google"): project/project-id,
                            instance/zone, instance/name,
                            instance/service-accounts/default/token
  /token                    Google's OAuth 2.0 token endpoint: the JWT-bearer
                            grant (the RS256 signature is VERIFIED with the
                            service-account key's public key, --sa-pubkey,
                            by `openssl dgst`; iss, aud, scope, iat/exp are
                            checked) and the refresh-token grant
  /compute/v1/...           the Compute API: POST instanceGroups/G/listInstances
                            ({"instanceState":"RUNNING"}), GET instances
                            (filter "status = RUNNING"), GET instances/NAME
                            (TF's per-instance call); maxResults/pageToken
                            paging, `fields` selections applied, Google's
                            error bodies

Instances are real-shaped (every field a real instances.get returns).
--scenario: "basic" (the test cluster, see SCENARIO below) or
"big:N:G" (N instances in G groups of zone us-central1-a, plus N/4
instances in no group).
--mode (comma-separated): slow (3 s before Compute answers), slow-metadata,
forbidden, quota (429 + Retry-After: --retry-after), unavailable (503),
garbage (200 with HTML), truncated, stuck-token (a page's nextPageToken
repeats the token it was asked with), no-flavor (metadata answers lack the
header), revoke (a token is
revoked after --revoke-after Compute requests: 401).
badgateway: Compute answers 502 with a proxy's HTML page; badip: tf-worker-1
and tf-worker-3 have a networkIP no address can hold.
quota/unavailable hit the first --fail-count Compute requests (default: all).
--cache renders each successful Compute answer once and replays it (the
benchmark: the fixture's own JSON encoding then costs neither side).
--attributes FILE: the instance's custom attributes, served at
instance/attributes/KEY (the file is read again for every request).
Every request is logged as one JSON line to --log.
"""
import argparse
import base64
import http.server
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

PROJECT = "muster-test"
API = "https://www.googleapis.com/compute/v1"


def instance(name, zone, ip, n, status="RUNNING", nat=None, accels=(), ipv6=None):
    z = "%s/projects/%s/zones/%s" % (API, PROJECT, zone)
    nic = {"kind": "compute#networkInterface",
           "network": "%s/projects/%s/global/networks/default" % (API, PROJECT),
           "subnetwork": "%s/projects/%s/regions/%s/subnetworks/default" % (API, PROJECT, zone[:-2]),
           "name": "nic0", "fingerprint": "ZwPOrJ0kvvE=", "stackType": "IPV4_ONLY"}
    if ip is not None:
        nic["networkIP"] = ip
    if ipv6 is not None:
        nic["ipv6Address"] = ipv6
        nic["stackType"] = "IPV4_IPV6" if ip else "IPV6_ONLY"
    if nat is not None:
        nic["accessConfigs"] = [{"kind": "compute#accessConfig", "type": "ONE_TO_ONE_NAT",
                                 "name": "External NAT", "natIP": nat, "networkTier": "PREMIUM"}]
    inst = {
        "kind": "compute#instance", "id": str(4410000000000000000 + n),
        "creationTimestamp": "2026-11-21T12:16:26.493-08:00", "name": name,
        "tags": {"items": ["tf-node"], "fingerprint": "6smc4R4d39I="},
        "machineType": "%s/machineTypes/%s" % (z, "a2-highgpu-8g" if accels else "n2-standard-8"),
        "status": status, "zone": z, "canIpForward": False,
        "networkInterfaces": [nic],
        "disks": [{"kind": "compute#attachedDisk", "type": "PERSISTENT", "mode": "READ_WRITE",
                   "source": "%s/disks/%s" % (z, name), "deviceName": "persistent-disk-0",
                   "index": 0, "boot": True, "autoDelete": True,
                   "licenses": ["%s/projects/debian-cloud/global/licenses/debian-12-bookworm" % API],
                   "interface": "SCSI", "guestOsFeatures": [{"type": "UEFI_COMPATIBLE"},
                                                            {"type": "VIRTIO_SCSI_MULTIQUEUE"},
                                                            {"type": "GVNIC"}],
                   "diskSizeGb": "100", "architecture": "X86_64"}],
        "metadata": {"kind": "compute#metadata", "fingerprint": "hWbeL2Ey0Qs=",
                     "items": [{"key": "instance-template",
                                "value": "projects/771288110/global/instanceTemplates/tf-template"},
                               {"key": "created-by",
                                "value": "projects/771288110/zones/%s/instanceGroupManagers/tf" % zone}]},
        "serviceAccounts": [{"email": "771288110-compute@developer.gserviceaccount.com",
                             "scopes": ["https://www.googleapis.com/auth/cloud-platform"]}],
        "selfLink": "%s/instances/%s" % (z, name),
        "scheduling": {"onHostMaintenance": "TERMINATE" if accels else "MIGRATE",
                       "automaticRestart": True, "preemptible": False,
                       "provisioningModel": "STANDARD"},
        "cpuPlatform": "Intel Cascade Lake", "labelFingerprint": "42WmSpB8rSM=",
        "startRestricted": False, "deletionProtection": False,
        "shieldedInstanceConfig": {"enableSecureBoot": False, "enableVtpm": True,
                                   "enableIntegrityMonitoring": True},
        "shieldedInstanceIntegrityPolicy": {"updateAutoLearnPolicy": True},
        "fingerprint": "pcUjq9dJnzI=", "lastStartTimestamp": "2026-11-21T12:16:38.101-08:00",
        "satisfiesPzi": True,
    }
    if accels:
        inst["guestAccelerators"] = [{"acceleratorType": "%s/acceleratorTypes/%s" % (z, t),
                                      "acceleratorCount": c} for t, c in accels]
    return inst


def scenario(name):
    """{zone: [instances]}, {(zone, group): [instance names]}"""
    zones, groups, n = {}, {}, [0]

    def add(group, zone, iname, ip, **kw):
        n[0] += 1
        zones.setdefault(zone, []).append(instance(iname, zone, ip, n[0], **kw))
        if group:
            groups.setdefault((zone, group), []).append(iname)

    if name == "basic":
        a, b = "us-central1-a", "us-central1-b"
        groups[(a, "empty-group")] = []
        # 12 workers: natural order worker-0..11; TF's ip order differs.
        for i in (3, 11, 0, 7, 1, 10, 2, 9, 4, 8, 5, 6):
            add("tf-workers", a, "tf-worker-%d" % i, "10.128.%d.2" % i)
        add("tf-workers", a, "tf-worker-12", "10.128.12.2", status="STOPPING")
        for i in range(2):
            add("tf-ps", a, "tf-ps-%d" % i, "10.128.20.%d" % (10 + i),
                nat="34.70.1.%d" % (10 + i))
        add("gpu-workers", a, "gpu-0", "10.128.30.10",
            accels=[("nvidia-tesla-a100", 8)])
        add("gpu-workers", a, "gpu-1", "10.128.30.11",
            accels=[("nvidia-l4", 2), ("nvidia-l4", 2)])
        add("gpu-workers", a, "gpu-2", "10.128.30.12", accels=[("tpu-v5-lite-device", 4)])
        add("v6-group", a, "v6-0", None, ipv6="fd20:b2c:5e4:0:0:1::")
        add("v6-group", a, "v6-1", "10.128.40.11", ipv6="fd20:b2c:5e4:0:0:2::")
        for i in range(5):  # not in any group
            add(None, a, "web-%d" % i, "10.128.50.%d" % i)
        for i in range(2):
            add("tf-workers-b", b, "tf-worker-b-%d" % i, "10.132.0.%d" % (10 + i))
        # A regional group's members live in both zones.
        add("regional", a, "reg-0", "10.128.60.10")
        n[0] += 1
        zones[b].append(instance("reg-1", b, "10.132.60.11", n[0]))
        groups[(a, "regional")].append("zones/%s/reg-1" % b)
        # Same name as in zone a, different machine, in zone b's group.
        add("tf-workers-b", b, "tf-worker-0", "10.132.0.99")
    else:
        m = re.fullmatch(r"big:(\d+):(\d+)", name)
        if not m:
            raise SystemExit("unknown scenario %s" % name)
        count, ng = int(m.group(1)), int(m.group(2))
        z = "us-central1-a"
        per = count // ng
        for g in range(ng):
            for i in range(per):
                k = g * per + i
                add("tf-group-%d" % g, z, "tf-%d-%d" % (g, i),
                    "10.%d.%d.%d" % (64 + g, i // 250, 2 + i % 250))
        for i in range(count // 4):
            add(None, z, "other-%d" % i, "10.99.%d.%d" % (i // 250, 2 + i % 250))
    return zones, groups


# ------------------------------------------------------------ fields

def parse_fields(s):
    """Google's partial-response syntax into {name: subtree or None}."""
    pos = [0]

    def parse_list():
        out = {}
        while pos[0] < len(s):
            start = pos[0]
            while pos[0] < len(s) and s[pos[0]] not in ",()/":
                pos[0] += 1
            name = s[start:pos[0]]
            sub = None
            if pos[0] < len(s) and s[pos[0]] == "(":
                pos[0] += 1
                sub = parse_list()
                pos[0] += 1  # ')'
            elif pos[0] < len(s) and s[pos[0]] == "/":
                pos[0] += 1
                sub = parse_list_one()
            out[name] = sub
            if pos[0] < len(s) and s[pos[0]] == ",":
                pos[0] += 1
                continue
            break
        return out

    def parse_list_one():
        start = pos[0]
        while pos[0] < len(s) and s[pos[0]] not in ",()/":
            pos[0] += 1
        name = s[start:pos[0]]
        sub = None
        if pos[0] < len(s) and s[pos[0]] == "(":
            pos[0] += 1
            sub = parse_list()
            pos[0] += 1
        elif pos[0] < len(s) and s[pos[0]] == "/":
            pos[0] += 1
            sub = parse_list_one()
        return {name: sub}

    return parse_list()


def prune(obj, tree):
    if tree is None:
        return obj
    if isinstance(obj, list):
        return [prune(x, tree) for x in obj]
    if isinstance(obj, dict):
        return {k: prune(obj[k], t) for k, t in tree.items() if k in obj}
    return obj


# ------------------------------------------------------------ JWT

def b64url_decode(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def verify_rs256(signing_input, sig, pubkey):
    with tempfile.NamedTemporaryFile() as d, tempfile.NamedTemporaryFile() as sf:
        d.write(signing_input)
        d.flush()
        sf.write(sig)
        sf.flush()
        p = subprocess.run(["openssl", "dgst", "-sha256", "-verify", pubkey, "-signature",
                            sf.name, d.name], capture_output=True)
        return p.returncode == 0


def gerror(code, message, reason, status):
    return {"error": {"code": code, "message": message,
                      "errors": [{"message": message, "domain": "global", "reason": reason}],
                      "status": status}}


class State:
    def __init__(self, args):
        self.args = args
        self.modes = set(filter(None, args.mode.split(",")))
        self.zones, self.groups = scenario(args.scenario)
        self.by_name = {(z, i["name"]): i for z, l in self.zones.items() for i in l}
        if "badip" in self.modes:
            for iname, ip in (("tf-worker-1", "10.128.1.2:99"), ("tf-worker-3", "10.128.3.2 x")):
                self.by_name[("us-central1-a", iname)]["networkInterfaces"][0]["networkIP"] = ip
        self.lock = threading.Lock()
        self.tokens = set()
        self.issued = 0
        self.compute_requests = 0
        self.uses = {}
        self.cache = {}

    def log(self, entry):
        if self.args.log:
            with self.lock, open(self.args.log, "a") as f:
                f.write(json.dumps(entry) + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-gce/1"
    wbufsize = -1  # headers and body leave in one write (flushed per request)

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *a):
        pass

    def send(self, code, obj=None, raw=None, ctype="application/json; charset=UTF-8",
             headers=(), cut=False):
        body = raw if raw is not None else json.dumps(obj, separators=(",", ":")).encode()
        if cut:
            body = body[:len(body) // 2]
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length", "0") or 0)
        return self.rfile.read(n) if n else b""

    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def route(self, method):
        st = self.server.state
        url = urllib.parse.urlsplit(self.path)
        q = {k: v[0] for k, v in urllib.parse.parse_qs(url.query, keep_blank_values=True).items()}
        body = self.body()
        entry = {"method": method, "path": url.path, "query": q,
                 "client_port": self.client_address[1]}
        try:
            if url.path.startswith("/computeMetadata/v1/"):
                entry["kind"] = "metadata"
                code = self.metadata(st, url.path[len("/computeMetadata/v1/"):])
            elif url.path == "/token":
                entry["kind"] = "token"
                code = self.token(st, body, entry)
            elif url.path.startswith("/compute/v1/"):
                code = self.compute(st, method, url.path[len("/compute/v1/"):], q, body, entry)
            else:
                code = 404
                self.send(404, raw=b"Not Found", ctype="text/plain")
            entry["code"] = code
            st.log(entry)
        except (BrokenPipeError, ConnectionResetError):
            pass

    # ------------------------------------------------ metadata server
    def metadata(self, st, path):
        if self.headers.get("Metadata-Flavor") != "Google":
            self.send(403, raw=b"Missing Metadata-Flavor:Google header.\n", ctype="text/html")
            return 403
        if "slow-metadata" in st.modes:
            time.sleep(3)
        hdr = () if "no-flavor" in st.modes else (("Metadata-Flavor", "Google"),)
        a = st.args
        values = {"project/project-id": PROJECT,
                  "instance/zone": "projects/771288110/zones/%s" % a.zone,
                  "instance/name": a.self_name}
        if a.attributes:
            with open(a.attributes) as f: # read again: a test may change it
                for k, v in json.load(f).items():
                    values["instance/attributes/" + k] = v
        if path in values and values[path]:
            self.send(200, raw=values[path].encode(), ctype="application/text", headers=hdr)
            return 200
        if path == "instance/service-accounts/default/token":
            with st.lock:
                st.issued += 1
                tok = "ya29.metadata-token-%d" % st.issued
                st.tokens.add(tok)
            self.send(200, {"access_token": tok, "expires_in": a.expires_in,
                            "token_type": "Bearer"}, headers=hdr)
            return 200
        self.send(404, raw=b"Not Found\n", ctype="text/html", headers=hdr)
        return 404

    # ------------------------------------------------ token endpoint
    def token(self, st, body, entry):
        a = st.args
        form = {k: v[0] for k, v in urllib.parse.parse_qs(body.decode()).items()}
        grant = form.get("grant_type")
        entry["grant_type"] = grant
        bad = None
        if grant == "urn:ietf:params:oauth:grant-type:jwt-bearer":
            try:
                h64, c64, s64 = form.get("assertion", "").split(".")
                hdr = json.loads(b64url_decode(h64))
                claims = json.loads(b64url_decode(c64))
            except (ValueError, TypeError):
                bad = ("invalid_grant", "Invalid JWT: malformed")
            else:
                entry["jwt_header"] = hdr
                entry["jwt_claims"] = {k: claims.get(k) for k in ("iss", "aud", "scope")}
                now = time.time()
                if hdr.get("alg") != "RS256":
                    bad = ("invalid_grant", "Invalid JWT: alg")
                elif not a.sa_pubkey or not verify_rs256((h64 + "." + c64).encode(),
                                                         b64url_decode(s64), a.sa_pubkey):
                    bad = ("invalid_grant", "Invalid JWT Signature.")
                elif claims.get("iss") != a.sa_email:
                    bad = ("invalid_grant", "Invalid JWT: iss")
                elif claims.get("aud") != "http://%s/token" % self.headers.get("Host"):
                    bad = ("invalid_grant", "Invalid JWT: aud %s" % claims.get("aud"))
                elif "compute" not in claims.get("scope", "") and \
                        "cloud-platform" not in claims.get("scope", ""):
                    bad = ("invalid_scope", "Invalid OAuth scope or ID token audience provided.")
                elif not (claims.get("iat", 0) - 300 <= now <= claims.get("exp", 0)) or \
                        claims.get("exp", 0) - claims.get("iat", 0) > 3600:
                    bad = ("invalid_grant", "Invalid JWT: Token must be a short-lived token "
                           "(60 minutes) and in a reasonable timeframe.")
                entry["jwt_verified"] = bad is None
        elif grant == "refresh_token":
            if (form.get("client_id"), form.get("client_secret"), form.get("refresh_token")) != \
                    ("muster-client.apps.googleusercontent.com", "muster-client-secret",
                     a.refresh_token):
                bad = ("invalid_grant", "Bad Request")
        else:
            bad = ("unsupported_grant_type", "Invalid grant_type: %s" % grant)
        if bad:
            self.send(400, {"error": bad[0], "error_description": bad[1]})
            return 400
        with st.lock:
            st.issued += 1
            tok = "ya29.issued-token-%d" % st.issued
            st.tokens.add(tok)
        self.send(200, {"access_token": tok, "expires_in": a.expires_in, "token_type": "Bearer"})
        return 200

    # ------------------------------------------------ Compute API
    def authorized(self, st):
        auth = self.headers.get("Authorization", "")
        tok = auth[7:] if auth.startswith("Bearer ") else None
        ok = tok in st.tokens
        if not ok and tok and st.args.access_token_file:
            with open(st.args.access_token_file) as f:
                ok = tok == f.read().strip()
        if ok and "revoke" in st.modes:
            with st.lock:
                st.uses[tok] = st.uses.get(tok, 0) + 1
                if st.uses[tok] > st.args.revoke_after:
                    st.tokens.discard(tok)
                    return "revoked"
        return "ok" if ok else ("none" if tok is None else "bad")

    def compute(self, st, method, path, q, body, entry):
        a = st.args
        entry["auth"] = self.authorized(st)
        with st.lock:
            st.compute_requests += 1
            nth = st.compute_requests
        m = re.fullmatch(r"projects/([^/]+)/zones/([^/]+)/(instanceGroups/([^/]+)/listInstances|"
                         r"instances(?:/([^/]+))?)", path)
        entry["kind"] = ("listInstances" if m and m.group(4) else
                         "instances.get" if m and m.group(5) else "instances.list")
        if entry["auth"] != "ok":
            self.send(401, gerror(401, "Request had invalid authentication credentials. Expected "
                                  "OAuth 2 access token, login cookie or other valid "
                                  "authentication credential.", "authError", "UNAUTHENTICATED"),
                      headers=(("WWW-Authenticate", 'Bearer realm="https://accounts.google.com/"'),))
            return 401
        if "slow" in st.modes:
            time.sleep(3)
        failing = a.fail_count < 0 or nth <= a.fail_count
        if "forbidden" in st.modes:
            what = "instanceGroups.list" if entry["kind"] == "listInstances" else "instances.list"
            self.send(403, gerror(403, "Required 'compute.%s' permission for 'projects/%s'"
                                  % (what, m.group(1) if m else "?"), "forbidden",
                                  "PERMISSION_DENIED"))
            return 403
        if "quota" in st.modes and failing:
            self.send(429, gerror(429, "Quota exceeded for quota metric 'Read requests' and limit "
                                  "'Read requests per minute' of service "
                                  "'compute.googleapis.com' for consumer 'project_number:771288110'.",
                                  "rateLimitExceeded", "RESOURCE_EXHAUSTED"),
                      headers=(("Retry-After", str(a.retry_after)),))
            return 429
        if "unavailable" in st.modes and failing:
            self.send(503, gerror(503, "The service is currently unavailable.", "backendError",
                                  "UNAVAILABLE"))
            return 503
        if "badgateway" in st.modes:
            self.send(502, raw=b"<html><head><title>502 Bad Gateway</title></head><body>"
                      b"<center><h1>502 Bad Gateway</h1></center></body></html>\n",
                      ctype="text/html")
            return 502
        if "garbage" in st.modes:
            self.send(200, raw=b"<html><body>Sign in - Google Accounts</body></html>",
                      ctype="text/html")
            return 200
        if not m or m.group(1) != PROJECT:
            self.send(404, gerror(404, "The resource 'projects/%s' was not found"
                                  % (m.group(1) if m else path), "notFound", "NOT_FOUND"))
            return 404
        zone = m.group(2)
        key = (method, path, tuple(sorted(q.items())), body)
        if a.cache and key in st.cache:  # --cache: answers rendered once
            self.send(200, raw=st.cache[key])
            return 200
        fields = parse_fields(q["fields"]) if q.get("fields") else None
        if m.group(4):  # listInstances
            if method != "POST":
                self.send(405, gerror(405, "Method not allowed", "httpMethodNotAllowed", "UNKNOWN"))
                return 405
            req = json.loads(body or b"{}")
            entry["body"] = req
            key = (zone, m.group(4))
            if key not in st.groups:
                self.send(404, gerror(404, "The resource 'projects/%s/zones/%s/instanceGroups/%s' "
                                      "was not found" % (PROJECT, zone, m.group(4)), "notFound",
                                      "NOT_FOUND"))
                return 404
            items = []
            for name in st.groups[key]:
                iz, iname = (name.split("/")[1], name.split("/")[2]) if "/" in name else (zone, name)
                inst = st.by_name[(iz, iname)]
                if req.get("instanceState") == "RUNNING" and inst["status"] != "RUNNING":
                    continue
                items.append({"instance": inst["selfLink"], "status": inst["status"]})
            # The API answers in name order (TF asks for orderBy=name).
            items.sort(key=lambda i: i["instance"].rsplit("/", 1)[1])
            kind = "compute#instanceGroupsListInstances"
            self_link = "%s/projects/%s/zones/%s/instanceGroups/%s" % (API, PROJECT, zone, m.group(4))
        elif m.group(5):  # instances.get
            inst = st.by_name.get((zone, m.group(5)))
            if inst is None:
                self.send(404, gerror(404, "The resource 'projects/%s/zones/%s/instances/%s' was "
                                      "not found" % (PROJECT, zone, m.group(5)), "notFound",
                                      "NOT_FOUND"))
                return 404
            return self.send_ok(st, key, prune(inst, fields))
        else:  # instances.list
            flt = q.get("filter", "")
            items = list(st.zones.get(zone, []))
            if flt:
                fm = re.fullmatch(r'\(?\s*status\s*=\s*"?(\w+)"?\s*\)?', flt)
                if not fm:
                    self.send(400, gerror(400, "Invalid value for field 'filter': '%s'. Invalid "
                                          "list filter expression." % flt, "invalid",
                                          "INVALID_ARGUMENT"))
                    return 400
                items = [i for i in items if i["status"] == fm.group(1)]
            items.sort(key=lambda i: i["name"])
            kind = "compute#instanceList"
            self_link = "%s/projects/%s/zones/%s/instances" % (API, PROJECT, zone)
        limit = min(int(q.get("maxResults", "500") or 500), 500)
        start = int(b64url_decode(q["pageToken"]).decode()) if q.get("pageToken") else 0
        page = items[start:start + limit]
        out = {"kind": kind, "id": "projects/%s/zones/%s" % (PROJECT, zone), "items": page,
               "selfLink": self_link}
        if not page:
            del out["items"]  # as the API does
        if start + limit < len(items):
            out["nextPageToken"] = base64.urlsafe_b64encode(str(start + limit).encode()).decode()
        if "stuck-token" in st.modes and q.get("pageToken"):
            out["nextPageToken"] = q["pageToken"]
        entry["items"] = len(page)
        if "truncated" in st.modes:
            self.send(200, prune(out, fields), cut=True)
            return 200
        return self.send_ok(st, key, prune(out, fields))

    def send_ok(self, st, key, obj):
        raw = json.dumps(obj, separators=(",", ":")).encode()
        if st.args.cache:
            st.cache[key] = raw
        self.send(200, raw=raw)
        return 200


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", default="basic")
    ap.add_argument("--mode", default="")
    ap.add_argument("--zone", default="us-central1-a")
    ap.add_argument("--self-name", default="tf-worker-3")
    ap.add_argument("--attributes",
                    help="a JSON object of the instance's attributes (a TPU VM's "
                         "agent-worker-number, worker-network-endpoints, ...)")
    ap.add_argument("--sa-pubkey")
    ap.add_argument("--sa-email", default="trainer@muster-test.iam.gserviceaccount.com")
    ap.add_argument("--refresh-token", default="1//muster-refresh-token")
    ap.add_argument("--access-token-file")
    ap.add_argument("--expires-in", type=int, default=3599)
    ap.add_argument("--retry-after", type=int, default=1)
    ap.add_argument("--fail-count", type=int, default=-1)
    ap.add_argument("--revoke-after", type=int, default=2)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    ap.add_argument("--cache", action="store_true",
                    help="render each Compute answer once (benchmarks)")
    args = ap.parse_args()

    srv = Server(("127.0.0.1", 0), Handler)
    srv.state = State(args)
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
