#!/usr/bin/env python3
"""Python clients against `muster reserve`, written from a description
of the protocol: a frame is a 4-byte
big-endian length and one pickle; a request is {'type': T, 'data': D} with
'data' only when truthy; replies are 'OK', True/False, the list, 'ERR'.

usage: reserve_test.py SCENARIO      (prints TAP, exits 0 when all pass)

The harness exports MUSTER_BIN.  Only loopback addresses are used; files go
under a fresh temporary directory.
"""
import hashlib
import hmac
import json
import os
import pickle
import pickletools
import resource
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid

MUSTER = os.environ.get("MUSTER_BIN")
TMP = tempfile.mkdtemp(prefix="muster-reserve.")
# A sanitizer's report must not pass for one of our exit statuses.
os.environ["ASAN_OPTIONS"] = (os.environ.get("ASAN_OPTIONS", "") + ":exitcode=99").lstrip(":")

ntests = 0
nfailed = 0


def check(cond, what, *detail):
    global ntests, nfailed
    ntests += 1
    if cond:
        print("ok %d - %s" % (ntests, what))
    else:
        nfailed += 1
        print("not ok %d - %s" % (ntests, what))
        for d in detail:
            for line in str(d).splitlines():
                print("#   " + line)
    sys.stdout.flush()
    return cond


# ---- the wire ----

def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError("socket closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


def recv_frame(sock):
    (n,) = struct.unpack(">I", recv_exact(sock, 4))
    return recv_exact(sock, n)


def send_frame(sock, payload):
    # Header and payload in one send, as the Python client does (A.2).
    sock.sendall(struct.pack(">I", len(payload)) + payload)


def closed_without_reply(sock, timeout=5.0):
    """True when the server closes the connection without sending a byte."""
    sock.settimeout(timeout)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


class Client:
    """TensorFlowOnSpark's reservation.Client, from the description."""

    def __init__(self, port, protocol=None, auth_key=None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.protocol = protocol
        self.auth = Auth(auth_key, self.sock) if auth_key is not None else None

    def request(self, type_, data=None):
        msg = {"type": type_}
        if data:
            msg["data"] = data
        if self.protocol is None:
            payload = pickle.dumps(msg)
        else:
            payload = pickle.dumps(msg, protocol=self.protocol)
        if self.auth is not None:
            self.auth.send(payload)
            return pickle.loads(self.auth.recv())
        send_frame(self.sock, payload)
        return pickle.loads(recv_frame(self.sock))

    def close(self):
        self.sock.close()


class Auth:
    """The authenticated framing of tfos/wire/frame.h, from its comment."""

    CONTEXT = b"muster-reservation-v1"

    def __init__(self, key, sock):
        self.key = key
        self.sock = sock
        self.nc = os.urandom(16)
        send_frame(sock, b"MSTRAUT1" + self.nc)
        hello = recv_frame(sock)
        assert hello[:8] == b"MSTRAUT1" and len(hello) == 24, hello
        self.ns = hello[8:]
        self.send_seq = 0
        self.recv_seq = 0

    def tag(self, direction, seq, pickle_bytes):
        return hmac.new(self.key, self.CONTEXT + self.ns + self.nc + direction +
                        struct.pack(">Q", seq) + pickle_bytes, hashlib.sha256).digest()

    def send(self, payload, seq=None):
        tag = self.tag(b"C", self.send_seq if seq is None else seq, payload)
        self.send_seq += 1
        send_frame(self.sock, payload + tag)

    def recv(self):
        frame = recv_frame(self.sock)
        body, tag = frame[:-32], frame[-32:]
        if not hmac.compare_digest(tag, self.tag(b"S", self.recv_seq, body)):
            raise ValueError("bad tag from the server")
        self.recv_seq += 1
        return body


def metadata(executor_id, job_name, task_index, port, host="127.0.0.1"):
    """The nine fields of A.6, in TFoS's order.  A ps's addr tuple reuses
    the host string object, so pickle writes a memo back-reference (A.4)."""
    if job_name in ("ps", "evaluator"):
        addr = (host, 39000 + executor_id)
    else:
        addr = "/tmp/pymp-test/listener-%d" % executor_id
    return {
        "executor_id": executor_id,
        "host": host,
        "job_name": job_name,
        "task_index": task_index,
        "port": port,
        "tb_pid": 0,
        "tb_port": 0,
        "addr": addr,
        "authkey": uuid.uuid4().bytes,
    }


def executor(port, meta, protocol=None, poll=0.02, results=None, auth_key=None, pause=0):
    """TFSparkNode.run's reservation sequence on one connection: QINFO (a
    retry?), REG, QUERY until True, QINFO."""
    out = {"meta": meta, "error": None}
    try:
        c = Client(port, protocol, auth_key)
        first = c.request("QINFO")
        out["first_qinfo"] = first
        time.sleep(pause)
        mine = [m for m in first if m.get("host") == meta["host"]
                and m.get("executor_id") == meta["executor_id"]]
        if not mine:
            out["reg"] = c.request("REG", meta)
        # (TFoS's retry path takes its first QINFO as final; that list may
        # be partial, so a retried executor here waits like the others.)
        queries = []
        while True:
            q = c.request("QUERY")
            queries.append(q)
            if q is True:
                break
            time.sleep(poll)
        out["queries"] = queries
        out["list"] = c.request("QINFO")
        out["done_at"] = time.monotonic()
        c.close()
    except Exception as e:  # reported by the scenario
        out["error"] = repr(e)
    if results is not None:
        results.append(out)
    return out


def start_executors(port, metas, protocols=None, **kw):
    """One thread per executor; join the threads, then read the results."""
    results = []
    threads = []
    for i, m in enumerate(metas):
        proto = protocols[i % len(protocols)] if protocols else None
        t = threading.Thread(target=executor, args=(port, m, proto), kwargs=dict(results=results, **kw))
        t.start()
        threads.append(t)
    return threads, results


def run_executors(port, metas, protocols=None, **kw):
    threads, results = start_executors(port, metas, protocols, **kw)
    for t in threads:
        t.join(60)
    return results


# ---- the server ----

SERVERS = []  # every server started, ended by pid when a scenario ends


class Server:
    def __init__(self, *args, nofile=None, options=()):
        self.portfile = os.path.join(TMP, "port")
        if os.path.exists(self.portfile):
            os.remove(self.portfile)
        self.outfile = os.path.join(TMP, "out")
        self.errfile = os.path.join(TMP, "err")
        # options: muster's own, before the command (-vv).
        self.cmd = [MUSTER] + list(options) + ["reserve", "--host", "127.0.0.1", "--port-file",
                                               self.portfile] + list(args)
        # nofile: the server's (soft, hard) RLIMIT_NOFILE.
        limit = None if nofile is None else (
            lambda: resource.setrlimit(resource.RLIMIT_NOFILE, nofile))
        self.proc = subprocess.Popen(self.cmd, stdout=open(self.outfile, "w"),
                                     stderr=open(self.errfile, "w"), preexec_fn=limit)
        SERVERS.append(self)
        deadline = time.monotonic() + 30
        while not os.path.exists(self.portfile):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("muster reserve did not start: " + self.stderr())
            time.sleep(0.02)
        with open(self.portfile) as f:
            self.port = int(f.read())

    def wait(self, timeout=30):
        try:
            self.rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.rc = self.proc.wait()
            self.rc = "killed after %s s" % timeout
        return self.rc

    def stdout(self):
        with open(self.outfile) as f:
            return f.read()

    def stderr(self):
        with open(self.errfile) as f:
            return f.read()


def template_metas(n, num_ps=1, base_port=40000):
    metas = []
    for i in range(n):
        if i < num_ps:
            metas.append(metadata(i, "ps", i, base_port + i))
        else:
            metas.append(metadata(i, "worker", i - num_ps, base_port + i))
    return metas


def expected_spec(metas):
    spec = {}
    for m in sorted(metas, key=lambda m: m["executor_id"]):
        spec.setdefault(m["job_name"], []).append("%s:%d" % (m["host"], m["port"]))
    return spec


def no_errors(results):
    return [r["error"] for r in results if r["error"]]


# ---- scenarios ----

def scenario_basic():
    srv = Server("--size", "4", "--timeout", "30")
    port = srv.port
    # Before anything: QINFO is [] and QUERY False, on a connection that
    # also checks the replies' exact bytes (protocol 3, no memo ops).
    c = Client(port, protocol=4)
    send_frame(c.sock, pickle.dumps({"type": "QUERY"}, protocol=4))
    raw_false = recv_frame(c.sock)
    check(raw_false == b"\x80\x03\x89.", "QUERY before any REG answers False (80 03 89 2e)", raw_false)
    check(c.request("QINFO") == [], "QINFO before any REG answers []")
    check(c.request("PING") == "ERR", "an unknown request type answers 'ERR'")
    send_frame(c.sock, pickle.dumps({"type": "FOO", "data": [1, 2]}, protocol=0))
    raw_err = recv_frame(c.sock)
    check(raw_err == b"\x80\x03X\x03\x00\x00\x00ERR.", "'ERR' is a memo-less protocol-3 pickle",
          raw_err)
    c.close()

    metas = template_metas(4)
    # Unknown fields (and nested values) survive the round trip.
    metas[2]["extra"] = {"nested": [1, 2.5, None, True, b"\x00\xff"], "t": ("a", -1)}
    metas[3]["tb_port"] = "6006"  # TFoS once sent a str here
    results = run_executors(port, metas, protocols=[3, 4, 5, None])
    rc = srv.wait()
    check(not no_errors(results), "4 executors at protocols 3, 4, 5 and default complete",
          *no_errors(results))
    check(all(r.get("reg") == "OK" for r in results), "every REG answers 'OK'",
          [r.get("reg") for r in results])
    check(all(r.get("queries", [None])[-1] is True for r in results), "QUERY ends True")
    lists = [r.get("list") for r in results]
    check(all(isinstance(l, list) and len(l) == 4 for l in lists), "every final QINFO has 4 entries")
    byid = {m["executor_id"]: m for m in (lists[0] or [])}
    check(all(byid.get(m["executor_id"]) == m for m in metas),
          "registrations come back equal, unknown fields, tuples, bytes and a str tb_port included",
          byid, metas)
    check(rc == 0, "the server exits 0 once every executor fetched the list", rc, srv.stderr())
    want = json.dumps(expected_spec(metas))
    check(srv.stdout() == want + "\n", "stdout is the ClusterSpec sorted by executor id",
          "got:  " + srv.stdout(), "want: " + want)
    err = srv.stderr()
    check("waiting for 4 of 4 reservations" in err and "reservation complete" in err,
          "progress is printed on stderr", err)

    # --output FILE, a ps/chief/evaluator template, protocol 4 memo
    # back-references (ps and evaluator addr tuples).
    out = os.path.join(TMP, "spec.json")
    srv = Server("--size", "5", "--output", out)
    metas = [metadata(0, "ps", 0, 41000), metadata(1, "chief", 0, 41001),
             metadata(2, "evaluator", 0, 41002), metadata(3, "worker", 0, 41003),
             metadata(4, "worker", 1, 41004)]
    results = run_executors(srv.port, list(reversed(metas)), protocols=[4])
    rc = srv.wait()
    check(rc == 0 and not no_errors(results), "a 5-executor template completes", rc,
          *no_errors(results))
    with open(out) as f:
        text = f.read()
    check(text == json.dumps(expected_spec(metas)) + "\n" and srv.stdout() == "",
          "--output FILE gets the ClusterSpec (ps, chief, evaluator, worker), stdout nothing",
          text)


def scenario_stall():
    srv = Server("--size", "3", "--timeout", "30")
    port = srv.port
    # One stops inside the header, one inside the payload, one after
    # connecting: none of them may hold the others up.
    s1 = socket.create_connection(("127.0.0.1", port))
    s1.sendall(b"\x00\x00")
    s2 = socket.create_connection(("127.0.0.1", port))
    payload = pickle.dumps({"type": "REG", "data": metadata(0, "ps", 0, 1)})
    s2.sendall(struct.pack(">I", len(payload)) + payload[: len(payload) // 2])
    s3 = socket.create_connection(("127.0.0.1", port))
    time.sleep(0.2)
    start = time.monotonic()
    results = run_executors(port, template_metas(3))
    elapsed = max(r.get("done_at", start + 99) for r in results) - start
    rc = srv.wait()
    check(not no_errors(results), "3 executors complete beside 3 stalled connections",
          *no_errors(results))
    check(elapsed < 5, "the stalled clients delay nobody (%.2f s)" % elapsed)
    check(rc == 0, "the server exits 0 while the stalled clients still hold their sockets", rc,
          srv.stderr())
    for s in (s1, s2, s3):
        s.close()


class Evil:
    """Unpickling this would run a command: the server must not."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.system, ("touch " + self.path,))


def scenario_garbage():
    srv = Server("--size", "2", "--timeout", "30")
    port = srv.port
    marker = os.path.join(TMP, "pwned")
    cases = [
        ("HTTP request (a 1.2 GB length)", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", False),
        ("a REG whose data calls os.system (GLOBAL/REDUCE)",
         pickle.dumps({"type": "REG", "data": Evil(marker)}, protocol=2), True),
        ("the same at protocol 4 (STACK_GLOBAL)",
         pickle.dumps({"type": "REG", "data": Evil(marker)}, protocol=4), True),
        ("a truncated pickle", pickle.dumps({"type": "QUERY"}, protocol=4)[:-3], True),
        ("a pickle that is not a dict", pickle.dumps(["QUERY"]), True),
        ("a dict without 'type'", pickle.dumps({"kind": "QUERY"}), True),
        ("a REG without data (the reference's KeyError)", pickle.dumps({"type": "REG"}), True),
        ("random bytes", bytes(range(256)) * 2, True),
        ("2,000 nested lists", b"\x80\x04" + b"]" * 2000 + b"." , True),
        ("a memo index out of range", b"\x80\x03h\x05.", True),
        # CPython refuses these: a peer must never get them back.
        ("a REG whose host is not UTF-8 (0xff)",
         b"\x80\x04}(\x8c\x04type\x8c\x03REG\x8c\x04data}(\x8c\x04host\x8c\x01\xffuu.", True),
        ("a REG whose host is an overlong UTF-8 '/'",
         pickle.dumps({"type": "REG", "data": metadata(1, "worker", 0, 1)}, protocol=3)
         .replace(b"\x09\x00\x00\x00127.0.0.1", b"\x0a\x00\x00\x00127.0.0.\xc0\xaf"), True),
        ("a REG whose host is a Python 2 str with 0xe9",
         b"\x80\x02}(U\x04typeU\x03REGU\x04data}(U\x04hostU\x01\xe9uu.", True),
    ]
    for what, data, framed in cases:
        s = socket.create_connection(("127.0.0.1", port))
        if framed:
            send_frame(s, data)
        else:
            s.sendall(data)
        check(closed_without_reply(s), "dropped without a reply: " + what)
        s.close()
    metas = template_metas(2)
    metas[1]["extra"] = "lone \ud800 surrogate"  # CPython pickles and loads it
    results = run_executors(port, metas)
    rc = srv.wait()
    check(not no_errors(results), "2 executors complete after the garbage", *no_errors(results))
    # Registration order is the executors' race: the list is compared as a set.
    by_id = lambda l: sorted(l or [], key=lambda m: m["executor_id"])
    check(all(by_id(r.get("list")) == metas for r in results),
          "their list is theirs, a lone surrogate included", [r.get("list") for r in results])
    check(rc == 0, "the server exits 0", rc, srv.stderr())
    check(not os.path.exists(marker), "nothing received was executed")
    err = srv.stderr()
    check("GLOBAL" in err and "dropped" in err, "the drops are logged, naming the opcode", err)


def scenario_duplicates():
    # One executor id registers once.  The same registration again is
    # answered 'OK', as the reference answers every REG, and kept once; a
    # different one for an id already held, from its host or another, is
    # refused ('ERR') and the first stands.
    srv = Server("--size", "2", "--timeout", "30")
    first = metadata(0, "ps", 0, 42000)
    c = Client(srv.port)
    check(c.request("REG", first) == "OK", "a first registration of executor 0")
    c.close()
    c = Client(srv.port)
    check(c.request("REG", first) == "OK", "the same registration again is answered 'OK'")
    check(c.request("QINFO") == [first], "... and kept once")
    c.close()
    c = Client(srv.port)
    check(c.request("REG", metadata(0, "ps", 0, 42100)) == "ERR",
          "a different registration of executor 0 from its host is refused")
    c.close()
    c = Client(srv.port)
    check(c.request("REG", metadata(0, "ps", 0, 43000, host="127.0.0.2")) == "ERR",
          "executor 0 from another host is refused")
    check(c.request("QUERY") is False, "neither is counted")
    c.close()
    metas = [first, metadata(1, "worker", 0, 42001)]
    results = run_executors(srv.port, metas)
    rc = srv.wait()
    err = srv.stderr()
    check(rc == 0 and not no_errors(results), "completes with the first registration", rc, err,
          *no_errors(results))
    check(srv.stdout() == json.dumps(expected_spec(metas)) + "\n",
          "the ClusterSpec has the first port", srv.stdout())
    check("executor 0 registered again, unchanged" in err and
          "executor 0 on 127.0.0.1 is already registered" in err and
          "executor id 0 registered from host 127.0.0.2, but host 127.0.0.1 already holds it" in err,
          "the repeat and both refusals are reported", err)


def encoded_len(meta):
    """The size of a registration as the server keeps it: protocol 3, no
    memo (nothing in `meta` is shared)."""
    return len(pickletools.optimize(pickle.dumps(meta, protocol=3)))


def padded(meta, size):
    """`meta` with an 'extra' str making its encoding exactly `size` bytes."""
    meta = dict(meta, extra="")
    meta["extra"] = "x" * (size - encoded_len(meta))
    assert encoded_len(meta) == size
    return meta


def scenario_registrations():
    # What registers: at most --size registrations, one per executor id in
    # 0..size-1, each a ClusterSpec entry of at most 4 KiB encoded, one per
    # connection; anything else is refused with 'ERR' and takes no slot.
    srv = Server("--size", "2", "--timeout", "30")
    port = srv.port

    def refused(data, what):
        c = Client(port)
        check(c.request("REG", data) == "ERR", "refused: " + what)
        c.close()

    good = metadata(0, "ps", 0, 44000)
    refused({k: v for k, v in good.items() if k != "executor_id"}, "a REG without an executor id")
    refused({k: v for k, v in good.items() if k != "host"}, "a REG without a host")
    refused({"pad": "x" * 60000}, "a 60 kB REG with neither")
    refused({k: v for k, v in good.items() if k != "port"}, "a REG without a port")
    refused(metadata(2, "worker", 1, 44002), "executor id 2 with --size 2")
    refused(metadata(-1, "worker", 1, 44002), "executor id -1")
    refused(padded(metadata(1, "worker", 0, 44001), 4097), "a registration of 4,097 bytes")
    c = Client(port)
    check(c.request("QUERY") is False and c.request("QINFO") == [], "none of them took a slot")
    check(c.request("REG", good) == "OK", "executor 0 registers")
    check(c.request("REG", metadata(1, "worker", 0, 44001)) == "ERR",
          "a second executor from the same connection is refused")
    c1 = Client(port)
    exact = padded(metadata(1, "worker", 0, 44001), 4096)
    check(c1.request("REG", exact) == "OK", "a registration of exactly 4,096 bytes registers")
    # Complete now: nothing more registers, whatever it is.
    late = Client(port)
    check(late.request("REG", metadata(1, "worker", 0, 44005)) == "ERR" and
          late.request("REG", {"pad": "x"}) == "ERR", "once complete, REGs are refused")
    check(late.request("QINFO") == [good, exact], "the list is the two registrations")
    check(c.request("QINFO") == [good, exact] and c1.request("QINFO") == [good, exact],
          "both executors fetch it")
    rc = srv.wait()
    err = srv.stderr()
    check(rc == 0, "the server exits 0", rc, err)
    for why in ("registration has no 'executor_id'", "registration has no 'host'",
                "registration has no 'port'", "executor id 2 is outside 0 to 1",
                "4097 bytes encoded, over the cap of 4096",
                "this connection already registered executor 0"):
        check(why in err, "the log says why: " + why, err)
    mine = "127.0.0.1:%d: REG refused" % late.sock.getsockname()[1]
    check(err.count(mine) == 1, "two refusals on one connection are logged once", err)
    for s in (c, c1, late):
        s.close()

    # The QINFO list is encoded once per registration added, whoever asks.
    srv = Server("--size", "2", "--timeout", "30", options=["-vv"])
    c = Client(srv.port)
    lists = [c.request("QINFO") for _ in range(3)]
    c.request("REG", good)
    lists += [c.request("QINFO") for _ in range(3)]
    d = Client(srv.port)
    d.request("REG", metadata(0, "ps", 0, 44009))  # refused: no change
    lists += [d.request("QINFO") for _ in range(3)]
    check(lists == [[]] * 3 + [[good]] * 6, "QINFO answers as the registrations stand", lists)
    srv.proc.kill()
    srv.wait()
    encoded = srv.stderr().count("the QINFO list encoded")
    check(encoded == 2, "9 QINFOs, 2 states of the list: encoded %d times" % encoded, srv.stderr())
    c.close()
    d.close()


def scenario_stop():
    srv = Server("--size", "3", "--timeout", "30")
    c = Client(srv.port)
    check(c.request("REG", metadata(0, "ps", 0, 44000)) == "OK", "executor 0 registers")
    s = Client(srv.port)
    check(s.request("STOP") == "OK", "STOP answers 'OK'")
    rc = srv.wait()
    err = srv.stderr()
    check(rc == 2, "the server exits 2: stopped before complete", rc, err)
    check("stopped by a STOP request" in err and "2 of 3 executors never registered (ids 1, 2)"
          in err, "the message names the missing executors", err)
    try:
        socket.create_connection(("127.0.0.1", srv.port), timeout=2).close()
        refused = False
    except OSError:
        refused = True
    check(refused, "no more connections are accepted")
    c.close()
    s.close()


def scenario_timeout():
    srv = Server("--size", "4", "--timeout", "1")
    c0 = Client(srv.port)
    c0.request("REG", metadata(0, "ps", 0, 45000))
    c2 = Client(srv.port)
    c2.request("REG", metadata(2, "worker", 1, 45002))
    start = time.monotonic()
    rc = srv.wait()
    took = time.monotonic() - start
    err = srv.stderr()
    check(rc == 3, "the server exits 3 on timeout", rc, err)
    check(took < 5, "after about the timeout (%.1f s)" % took)
    check("timed out after 1 s: 2 of 4 executors never registered (ids 1, 3)" in err,
          "the message names the executors that never registered", err)
    check(srv.stdout() == "", "nothing on stdout")
    c0.close()
    c2.close()

    # Everyone registered, one never fetched the complete list.
    srv = Server("--size", "2", "--timeout", "2")
    c1 = Client(srv.port)
    c1.request("REG", metadata(1, "worker", 0, 46001))
    c1.close()
    results = run_executors(srv.port, [metadata(0, "ps", 0, 46000)])
    rc = srv.wait()
    err = srv.stderr()
    check(not no_errors(results) and rc == 3, "exit 3 when one executor never fetched", rc, err)
    check("1 registered but never fetched the complete list (ids 1)" in err,
          "the message names it", err)


def scenario_retry():
    # A retried executor (a new connection, already in QINFO) does not
    # register again; its complete QINFO counts for it.
    srv = Server("--size", "2", "--timeout", "30")
    m0 = metadata(0, "ps", 0, 47000)
    c = Client(srv.port)
    c.request("QINFO")
    c.request("REG", m0)
    c.close()  # the task died
    results = run_executors(srv.port, [m0, metadata(1, "worker", 0, 47001)])
    rc = srv.wait()
    check(not no_errors(results), "the retried executor and the other complete", *no_errors(results))
    retry = [r for r in results if r["meta"] is m0][0]
    check(retry.get("first_qinfo") == [m0] and "reg" not in retry,
          "the retry finds its registration and does not register again", retry)
    check(rc == 0, "exit 0: the retry's QINFO counts as executor 0's fetch", rc, srv.stderr())

    # The same when the retry comes last: its first QINFO completes the run,
    # and it still sends QUERY and a last QINFO, which must be answered.
    srv = Server("--size", "2", "--timeout", "30")
    c = Client(srv.port)
    c.request("QINFO")
    c.request("REG", m0)
    c.close()
    m1 = metadata(1, "worker", 0, 47001)
    other = executor(srv.port, m1)
    late = executor(srv.port, m0, pause=0.5)
    rc = srv.wait()
    check(other["error"] is None and late["error"] is None and late.get("list") == [m0, m1],
          "a retry whose first QINFO completes the run is still answered", other, late)
    check(rc == 0, "... and the server then exits 0", rc, srv.stderr())


def scenario_auth():
    key = os.urandom(32)
    keyfile = os.path.join(TMP, "key")
    fd = os.open(keyfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, key.hex().encode() + b"\n")
    os.close(fd)
    keybytes = key.hex().encode()  # the file's bytes less the newline

    srv = Server("--size", "2", "--timeout", "30", "--auth-key-file", keyfile)
    port = srv.port
    # A TensorFlowOnSpark client: its plain request is dropped.
    s = socket.create_connection(("127.0.0.1", port))
    send_frame(s, pickle.dumps({"type": "REG", "data": metadata(0, "ps", 0, 48000)}))
    hello = recv_frame(s)
    check(hello[:8] == b"MSTRAUT1", "the server greets with its hello", hello)
    check(closed_without_reply(s), "an unauthenticated REG is dropped")
    s.close()
    # A wrong key: the server's tag check fails.
    try:
        c = Client(port, auth_key=b"x" * 32)
        c.request("QUERY")
        ok = False
    except (EOFError, ConnectionResetError):
        ok = True
    check(ok, "a client with the wrong key is dropped")
    # A replayed frame (its sequence number reused).
    c = Client(port, auth_key=keybytes)
    check(c.request("QUERY") is False, "an authenticated QUERY is answered")
    c.auth.send(pickle.dumps({"type": "QUERY"}), seq=0)
    check(closed_without_reply(c.sock), "a replayed frame is dropped")
    c.close()
    results = run_executors(port, template_metas(2), auth_key=keybytes)
    rc = srv.wait()
    check(not no_errors(results), "authenticated executors complete", *no_errors(results))
    check(rc == 0, "the server exits 0", rc, srv.stderr())
    check(srv.stdout() == json.dumps(expected_spec([r["meta"] for r in results])) + "\n",
          "and prints the ClusterSpec", srv.stdout())
    check("no authentication hello" in srv.stderr(), "the drops are logged", srv.stderr())

    # A key file others may read is refused (exit 4).
    os.chmod(keyfile, 0o644)
    p = subprocess.run([MUSTER, "reserve", "--size", "1", "--host", "127.0.0.1",
                        "--auth-key-file", keyfile], capture_output=True, text=True, timeout=30)
    check(p.returncode == 4 and keyfile in p.stderr, "a key file readable by others: exit 4",
          p.returncode, p.stderr)


def scenario_usage():
    def run(*args):
        return subprocess.run([MUSTER, "reserve"] + list(args), capture_output=True, text=True,
                              timeout=30)
    for args, msg in [((), "--size N is required"), (("--size", "0"), "--size must be"),
                      (("--size", "2", "--port", "1", "--port-range", "2-3"), "one --port"),
                      (("--size", "2", "--port-range", "9-3"), "is empty"),
                      (("--size", "2", "--timeout", "soon"), "--timeout must be"),
                      (("--size", "2", "--idle-timeout", "-1"), "--idle-timeout must be"),
                      (("--size", "2", "--max-connections", "0"), "--max-connections must be"),
                      (("--size", "2", "--max-per-address", "x"), "--max-per-address must be"),
                      (("--size", "2", "extra"), "unexpected argument")]:
        p = run(*args)
        check(p.returncode == 64 and msg in p.stderr, "usage error: %s" % (args,), p.returncode,
              p.stderr)
    p = run("--help")
    check(p.returncode == 0 and "--port-range" in p.stdout, "--help describes the options")
    # A port range whose first port is taken: the next one wins.
    # (a busy port whose successor is free; other tests run beside us)
    for _ in range(50):
        busy = socket.socket()
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        taken = busy.getsockname()[1]
        probe = socket.socket()
        try:
            probe.bind(("127.0.0.1", taken + 1))
            probe.close()
            break
        except OSError:
            probe.close()
            busy.close()
    srv = Server("--size", "1", "--timeout", "5", "--port-range", "%d-%d" % (taken, taken + 1))
    check(srv.port == taken + 1, "--port-range skips a port in use", srv.port, taken)
    results = run_executors(srv.port, template_metas(1, num_ps=0))
    check(srv.wait() == 0 and not no_errors(results), "a cluster of one completes", srv.stderr())
    p = run("--size", "1", "--host", "127.0.0.1", "--port", str(taken))
    check(p.returncode == 2 and "cannot listen" in p.stderr, "a port in use: exit 2", p.returncode,
          p.stderr)
    busy.close()


def main(scenarios=None):
    """Run the scenario named by argv[1], from `scenarios` (a module's
    globals; this module's by default)."""
    if MUSTER is None:
        print("MUSTER_BIN is not set: run me with make check")
        return 99
    name = sys.argv[1]
    try:
        (scenarios or globals())["scenario_" + name]()
    finally:
        for srv in SERVERS:
            if srv.proc.poll() is None:
                srv.proc.kill()
                srv.proc.wait()
        subprocess.run(["rm", "-rf", TMP])
    print("1..%d" % ntests)
    return 1 if nfailed else 0


if __name__ == "__main__":
    sys.exit(main())
