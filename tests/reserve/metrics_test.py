#!/usr/bin/env python3
"""`muster reserve --metrics-port`: the Prometheus page scraped with curl
while executors register (checked by promtool where it is installed, and
by tests/lib/prom_check.py everywhere), what it counts, and hostile
clients of the page — wrong paths and methods, garbage, a header too large,
a request a byte at a time, a slow-loris flood — none of which stalls the
reservation.

usage: metrics_test.py SCENARIO      (prints TAP, exits 0 when all pass)
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import prom_check  # noqa: E402
import reserve_test  # noqa: E402
from reserve_test import (MUSTER, Server, check, executor, no_errors,  # noqa: E402
                          template_metas)


def metrics_port(srv, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = re.search(r"metrics on http://\[?([0-9a-f.:]+)\]?:([0-9]+)/metrics", srv.stderr())
        if m:
            return int(m.group(2))
        time.sleep(0.02)
    raise RuntimeError("no metrics line: " + srv.stderr())


def curl(url, *args, timeout=10):
    """(HTTP status, body) through curl, the scraper a person has."""
    p = subprocess.run(["curl", "-sS", "-m", str(timeout), "-w", "\n%{http_code}"] + list(args) +
                       [url], capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr
    body, _, code = p.stdout.rpartition("\n")
    return int(code), body


def raw(port, data, pause=0.0, host="127.0.0.1", timeout=10):
    """Sends `data` (a byte at a time with `pause` between), returns what
    came back until the server closed."""
    s = socket.create_connection((host, port), timeout=timeout)
    try:
        if pause:
            for b in data:
                s.sendall(bytes([b]))
                time.sleep(pause)
        else:
            s.sendall(data)
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        s.close()


def status_of(answer):
    m = re.match(rb"HTTP/1\.1 ([0-9]{3}) ", answer)
    return int(m.group(1)) if m else None


def scrape(port):
    code, body = curl("http://127.0.0.1:%d/metrics" % port)
    return code, body, prom_check.load(body) if code == 200 else {}


def wait_for(port, cond, timeout=20):
    deadline = time.monotonic() + timeout
    while True:
        code, body, m = scrape(port)
        if code == 200 and cond(m):
            return m
        if time.monotonic() > deadline:
            return m
        time.sleep(0.1)


def exposition_ok(body, what):
    ok, said = prom_check.promtool(body)
    if ok is None:
        print("# %s (promtool is not installed: prom_check.py alone)" % said)
    else:
        check(ok, "%s: promtool check metrics" % what, said)
    try:
        prom_check.load(body)
        check(True, "%s: the exposition's format (prom_check.py)" % what)
    except ValueError as e:
        check(False, "%s: the exposition's format (prom_check.py)" % what, e, body)


def hostile(port):
    """The page's answers to what a scraper should not send."""
    a = raw(port, b"GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n")
    check(status_of(a) == 404, "another path: 404", a[:200])
    a = raw(port, b"POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")
    check(status_of(a) == 405 and b"\r\nAllow: GET, HEAD\r\n" in a,
          "POST: 405 with Allow: GET, HEAD", a[:200])
    a = raw(port, b"DELETE /metrics HTTP/1.1\r\n\r\n")
    check(status_of(a) == 405, "DELETE: 405", a[:200])
    a = raw(port, b"HEAD /metrics HTTP/1.1\r\n\r\n")
    head, _, body = a.partition(b"\r\n\r\n")
    check(status_of(a) == 200 and body == b"" and b"Content-Length: " in head,
          "HEAD: 200, the length and no body", a[:300])
    a = raw(port, b"GET /metrics HTTP/1.0\r\n\r\n")
    check(status_of(a) == 200 and b"muster_reserve_executors_expected" in a, "HTTP/1.0: 200")
    a = raw(port, b"GET /metrics?x=1 HTTP/1.1\r\nHost: x\r\n\r\n", pause=0.002)
    check(status_of(a) == 200, "a request a byte at a time, with a query: 200", a[:200])
    a = raw(port, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n")
    check(status_of(a) == 400, "a TLS hello or garbage: 400", a[:200])
    a = raw(port, b"GET / HTTP/1.1\r\nX: " + b"a" * 20000 + b"\r\n\r\n")
    check(status_of(a) == 431, "a header past 8 KiB: 431", a[:200])
    a = raw(port, b"GET /" + b"p" * 400 + b" HTTP/1.1\r\n\r\n")
    check(status_of(a) == 400, "a path past 255 bytes: 400", a[:200])
    # Slow loris: more half-sent requests than the page keeps; the oldest
    # make room, so a scrape still gets through at once.
    loris = []
    for _ in range(40):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /metrics HTTP/1.1\r\nX-Slow: ")
        loris.append(s)
    t0 = time.monotonic()
    code, body = curl("http://127.0.0.1:%d/metrics" % port, timeout=5)
    dt = time.monotonic() - t0
    check(code == 200 and dt < 3, "a scrape behind 40 slow-loris connections: 200 in %.2f s" % dt,
          body[:200])
    closed = 0
    for s in loris:
        s.settimeout(8)
        try:
            closed += s.recv(1) == b""
        except (ConnectionResetError, socket.timeout):
            closed += 1
        s.close()
    check(closed == 40, "the slow-loris connections were all closed (evicted or timed out)",
          closed)


def scenario_metrics():
    srv = Server("--size", "2", "--timeout", "60", "--metrics-port", "0")
    port = metrics_port(srv)
    code, body, m = scrape(port)
    check(code == 200, "the page answers at once", body)
    exposition_ok(body, "before any executor")
    check(m.get("muster_reserve_executors_expected") == 2 and
          m.get("muster_reserve_executors_registered") == 0 and
          m.get("muster_reserve_connections_open") == 0,
          "before any executor: 2 expected, none registered, no connection", m)

    metas = template_metas(2, num_ps=0)
    results = []
    first = threading.Thread(target=executor, args=(srv.port, metas[0]),
                             kwargs=dict(results=results, poll=0.05))
    first.start()
    m = wait_for(port, lambda m: m.get("muster_reserve_executors_registered") == 1 and
                 m.get("muster_reserve_requests_total", 0) >= 3)
    check(m.get("muster_reserve_executors_registered") == 1 and
          m.get("muster_reserve_executors_fetched") == 0 and
          m.get("muster_reserve_connections_open") == 1 and
          m.get("muster_reserve_connections_accepted_total") == 1 and
          m.get("muster_reserve_received_bytes_total", 0) > 100 and
          m.get("muster_reserve_sent_bytes_total", 0) > 10,
          "one executor waiting: registered, its connection, its requests and bytes", m)
    code, body, m = scrape(port)
    exposition_ok(body, "while an executor waits")

    hostile(port)

    results += [executor(srv.port, metas[1])]
    first.join(30)
    check(srv.wait() == 0 and not no_errors(results),
          "the reservation completes after all of that", srv.stderr(), no_errors(results))
    code, body = curl("http://127.0.0.1:%d/metrics" % port, timeout=3)
    check(code is None, "the page ends with the run (connection refused)", code, body)


def scenario_metrics_usage():
    p = subprocess.run([MUSTER, "reserve", "--size", "1", "--metrics-host", "127.0.0.1"],
                       capture_output=True, text=True)
    check(p.returncode == 64 and "--metrics-host goes with --metrics-port" in p.stderr,
          "--metrics-host alone: usage error", p.returncode, p.stderr)
    p = subprocess.run([MUSTER, "reserve", "--size", "1", "--metrics-port", "70000"],
                       capture_output=True, text=True)
    check(p.returncode == 64, "--metrics-port 70000: usage error", p.stderr)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    taken = busy.getsockname()[1]
    p = subprocess.run([MUSTER, "reserve", "--size", "1", "--host", "127.0.0.1",
                        "--metrics-port", str(taken), "--timeout", "5"],
                       capture_output=True, text=True)
    check(p.returncode == 2 and "metrics: cannot listen on 127.0.0.1 port %d" % taken in p.stderr,
          "a metrics port in use: exit 2, saying so", p.returncode, p.stderr)
    busy.close()
    # Another address: IPv6 loopback, where the machine has it.
    try:
        s6 = socket.socket(socket.AF_INET6)
        s6.bind(("::1", 0))
        s6.close()
    except OSError:
        print("ok %d - --metrics-host ::1 # SKIP no IPv6 loopback" % (reserve_test.ntests + 1))
        reserve_test.ntests += 1
        return
    srv = Server("--size", "1", "--timeout", "30", "--metrics-port", "0", "--metrics-host", "::1")
    port = metrics_port(srv)
    code, body = curl("http://[::1]:%d/metrics" % port)
    check(code == 200 and "http://[::1]:%d/metrics" % port in srv.stderr(),
          "--metrics-host ::1: served there, and said so", code, srv.stderr())
    code, body = curl("http://127.0.0.1:%d/metrics" % port, timeout=3)
    check(code is None, "... and not on 127.0.0.1", code)
    srv.proc.terminate()
    srv.wait()


if __name__ == "__main__":
    if shutil.which("curl") is None:
        print("1..0 # SKIP curl is not installed")
        sys.exit(0)
    sys.exit(reserve_test.main(globals()))
