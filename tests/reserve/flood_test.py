#!/usr/bin/env python3
"""`muster reserve` under a connection flood: idle and slow connections time
out, per-address and total caps, the descriptor limit, a registration flood,
and honest TensorFlowOnSpark executors that still get the cluster.

usage: flood_test.py SCENARIO      (prints TAP, exits 0 when all pass)

The flood comes from tests/reserve/flood.py processes (source 127.0.0.2,
target 127.0.0.1), bounded in count and time; executors connect from
127.0.0.1 and poll once a second, as TensorFlowOnSpark's do.  A flood lasts
a minute unless the server is done sooner; the issue's "CPU under 3 s over
the minute of the flood" is kept as a share, 5 % of the time from the
flood's start to the server's exit (at least 10 s), which holds under ASan.
"""
import json
import os
import pickle
import resource
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reserve_test  # noqa: E402
from reserve_test import (TMP, Client, Server, check, closed_without_reply, expected_spec,  # noqa: E402
                          no_errors, recv_frame, run_executors, send_frame, start_executors,
                          template_metas)

FLOOD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flood.py")
REG_FLOOD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reg_flood.py")
REG_FLOOD_S = 5
FLOOD_S = 60
CPU_SHARE = 3.0 / 60  # of the time from the flood's start to the server's exit, at least 10 s
CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---- watching the server ----

def proc_stat(pid):
    """(state, utime + stime in seconds); a zombie's too."""
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return rest[0], (int(rest[11]) + int(rest[12])) / CLK_TCK


def peak_rss_mib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def watch(pid, until):
    """Sample the server until it has exited (a zombie: not reaped yet) or
    `until`: (CPU seconds, peak RSS in MiB)."""
    peak = 0.0
    while True:
        state, cpu = proc_stat(pid)
        if state == "Z" or time.monotonic() >= until:
            return cpu, peak
        peak = max(peak, peak_rss_mib(pid))
        time.sleep(0.2)


class Flood:
    """flood.py processes, at most 500 sockets each (each fits a default
    descriptor limit); they end by themselves, stop() ends them by pid."""

    def __init__(self, port, idle, loris, seconds):
        self.procs = []
        ready = []
        for kind, count in (("idle", idle), ("loris", loris)):
            while count > 0:
                k = min(count, 500)
                f = tempfile.mktemp(".ready", "flood", TMP)
                n = (k, 0) if kind == "idle" else (0, k)
                self.procs.append(subprocess.Popen(
                    [sys.executable, FLOOD, str(port), str(n[0]), str(n[1]), str(seconds), f]))
                ready.append(f)
                count -= k
        deadline = time.monotonic() + 30
        while not all(os.path.exists(f) for f in ready) and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


def connect_from(source, port):
    s = socket.socket()
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    return s


def query_answered(sock, timeout):
    """Send QUERY; True when its answer (False) comes within `timeout`."""
    sock.settimeout(timeout)
    try:
        send_frame(sock, pickle.dumps({"type": "QUERY"}))
        return pickle.loads(recv_frame(sock)) is False
    except (OSError, EOFError):
        return False


def stop(srv):
    Client(srv.port).request("STOP")
    srv.wait()


# ---- scenarios ----

def scenario_idle():
    # The CLI raises its soft descriptor limit to the hard one.
    srv = Server("--size", "2", "--timeout", "30", "--idle-timeout", "1", nofile=(256, 1024))
    with open("/proc/%d/limits" % srv.proc.pid) as f:
        line = [l for l in f if l.startswith("Max open files")][0]
    check(line.split()[3:5] == ["1024", "1024"], "the soft descriptor limit is raised to the hard",
          line)
    silent = socket.create_connection(("127.0.0.1", srv.port))
    drip = socket.create_connection(("127.0.0.1", srv.port))
    poller = Client(srv.port)
    answers = []
    end = time.monotonic() + 3
    while time.monotonic() < end:
        try:
            drip.send(b"\x00")  # a header that never ends
        except OSError:
            pass
        answers.append(poller.request("QUERY"))
        time.sleep(0.3)
    check(closed_without_reply(silent, 0.5), "a connection that sends nothing is closed after 1 s")
    check(closed_without_reply(drip, 0.5), "one that sends a byte at a time, never a whole request, too")
    check(answers and all(a is False for a in answers),
          "a client completing a request every 0.3 s is served throughout", answers)
    poller.close()
    stop(srv)
    err = srv.stderr()
    check("no complete request in 1 s" in err, "the closes are logged", err)

    # The authentication handshake has the same deadline.
    keyfile = os.path.join(TMP, "key")
    fd = os.open(keyfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, os.urandom(32).hex().encode())
    os.close(fd)
    srv = Server("--size", "1", "--timeout", "30", "--idle-timeout", "1", "--auth-key-file", keyfile)
    s = socket.create_connection(("127.0.0.1", srv.port))
    hello = recv_frame(s)
    send_frame(s, hello[:8] + os.urandom(16))  # a client hello, then nothing
    start = time.monotonic()
    closed = closed_without_reply(s, 4)
    check(closed and time.monotonic() - start < 3,
          "a client that says hello but never sends a request is closed after 1 s")
    s.close()
    srv.proc.kill()
    srv.wait()


def scenario_caps():
    # --max-per-address 2: a third from one address is refused at once
    # (its own two have had no chance yet), another address is served, and
    # once they have (3 s idle) a newcomer evicts the one idle longest.
    srv = Server("--size", "2", "--timeout", "30", "--max-per-address", "2")
    a1 = connect_from("127.0.0.2", srv.port)
    time.sleep(0.2)
    a2 = connect_from("127.0.0.2", srv.port)
    time.sleep(0.2)
    a3 = connect_from("127.0.0.2", srv.port)
    check(closed_without_reply(a3, 2), "a third connection from 127.0.0.2 is closed")
    b = connect_from("127.0.0.1", srv.port)
    check(query_answered(b, 2), "127.0.0.1 is served beside it")
    time.sleep(3.2)
    a4 = connect_from("127.0.0.2", srv.port)
    check(query_answered(a4, 2), "after 3 s idle, a newcomer from 127.0.0.2 is served")
    check(closed_without_reply(a1, 1) and not closed_without_reply(a2, 0.2),
          "it evicted the connection idle longest, only that one")
    for s in (a1, a2, a3, a4, b):
        s.close()
    stop(srv)
    check("per-address" in srv.stderr(), "the cap is logged", srv.stderr())

    # --max-connections 2: a newcomer from another address is not refused:
    # it waits in the backlog until the connection idle longest has had 3 s.
    srv = Server("--size", "2", "--timeout", "30", "--max-connections", "2")
    a1 = connect_from("127.0.0.2", srv.port)
    time.sleep(0.2)
    a2 = connect_from("127.0.0.2", srv.port)
    time.sleep(0.2)
    start = time.monotonic()
    b = connect_from("127.0.0.1", srv.port)
    send_frame(b, pickle.dumps({"type": "QUERY"}))
    b.settimeout(1)
    try:
        early = b.recv(1)
    except socket.timeout:
        early = None
    check(early is None, "at the total cap, a newcomer waits (neither answered nor closed)", early)
    b.settimeout(6)
    try:
        reply = pickle.loads(recv_frame(b))
    except (OSError, EOFError) as e:
        reply = e
    took = time.monotonic() - start
    check(reply is False and took < 5,
          "and is served once the oldest idle connection is evicted (%.1f s)" % took, reply)
    check(closed_without_reply(a1, 1) and not closed_without_reply(a2, 0.2),
          "the one evicted is the connection idle longest")
    for s in (a1, a2, b):
        s.close()
    stop(srv)


def flood_case(what, metas, idle, loris, extra, delay, expect, nofile=None):
    """A flood, then after `delay` s the executors: all must get the cluster
    within 30 s, the server's CPU stays under CPU_SHARE, and its log says
    `expect`.  Returns the server's peak RSS in MiB."""
    srv = Server("--size", str(len(metas)), "--timeout", "60", *extra, nofile=nofile)
    pid = srv.proc.pid
    _, cpu0 = proc_stat(pid)
    start = time.monotonic()
    flood = Flood(srv.port, idle, loris, FLOOD_S)
    try:
        time.sleep(delay)
        t0 = time.monotonic()
        threads, results = start_executors(srv.port, metas, poll=1.0)
        cpu, peak = watch(pid, start + FLOOD_S)
        window = time.monotonic() - start
        for t in threads:
            t.join(60)
    finally:
        flood.stop()
    rc = srv.wait(15)
    took = max([r.get("done_at", t0 + 999) for r in results] or [t0 + 999]) - t0
    errors = no_errors(results)
    check(len(results) == len(metas) and not errors and took < 30,
          "%s: all %d executors get the cluster within 30 s (%.1f s)" % (what, len(metas), took),
          *errors[:3])
    bound = CPU_SHARE * max(window, 10)
    check(cpu - cpu0 < bound, "%s: server CPU %.2f s in %.0f s of flood (bound %.2f s)"
          % (what, cpu - cpu0, window, bound))
    err = srv.stderr()
    check(rc == 0 and expect in err, "%s: the server exits 0, its log saying '%s'" % (what, expect),
          rc, err[-2000:])
    return peak


def scenario_flood():
    # Issue 18, exact: under a hard limit of 1,024 descriptors, 1,100 idle
    # connections from 127.0.0.2, then 8 executors from 127.0.0.1.  With
    # the defaults the per-address cap holds the flood; with it lifted and
    # a 30 s idle timeout, the descriptor limit binds (the server sits there
    # for 5 s first) and eviction must let the executors in.
    limit = (1024, 1024)
    flood_case("1,100 idle, defaults", template_metas(8), 1100, 0, [], 0.5,
               "(the per-address cap)", limit)
    flood_case("1,100 idle, at the descriptor limit", template_metas(8), 1100, 0,
               ["--max-per-address", "100000", "--idle-timeout", "30"], 5,
               "evicted for a newcomer (accept: Too many open files", limit)


def scenario_loris():
    # Issue 11's shape: 2,000 idle sockets and 200 slow-loris senders, then
    # 64 executors, at the usual default limit of 1,024 descriptors (a hard
    # limit of 4,096, which the server raises it to); with the defaults,
    # then with the per-address cap lifted so that the total cap (64 +
    # 1,024) binds (and a 60 s idle timeout, so that eviction, not the
    # timeout, must let the executors in).
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    hard = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
    limit = (min(1024, hard), hard)
    metas = template_metas(64)
    peak = flood_case("2,000 idle + 200 slow", metas, 2000, 200, [], 0.5,
                      "(the per-address cap)", limit)
    check(peak < 128, "peak RSS %.0f MiB (bound 128)" % peak)
    peak = flood_case("2,000 idle + 200 slow, total cap", template_metas(64), 2000, 200,
                      ["--max-per-address", "100000", "--idle-timeout", "60"], 0.5,
                      "evicted for a newcomer (the cap of 1088 connections)", limit)
    check(peak < 128, "total cap: peak RSS %.0f MiB (bound 128)" % peak)


def reg_flood_case(kind, what):
    """A registration flood (reg_flood.py KIND) on one connection for 5 s,
    then 4 executors: all get the cluster, the server's peak RSS stays under
    64 MiB and its CPU under 3 s over the flood, no flood REG is accepted,
    and refusals are logged once per connection."""
    srv = Server("--size", "4", "--timeout", "30")
    pid = srv.proc.pid
    _, cpu0 = proc_stat(pid)
    flood = subprocess.Popen([sys.executable, REG_FLOOD, str(srv.port), str(REG_FLOOD_S), kind],
                             stdout=subprocess.PIPE, text=True)
    try:
        cpu, peak = watch(pid, time.monotonic() + REG_FLOOD_S)
        counts = flood.communicate(timeout=30)[0].split()
    finally:
        flood.kill()
        flood.wait()
    tally = dict(zip(counts[::2], (int(n) for n in counts[1::2])))
    metas = template_metas(4)
    results = run_executors(srv.port, metas)
    rc = srv.wait()
    err = srv.stderr()
    check(tally.get("answered", 0) > 0 and tally.get("ok") == 0,
          "%s: every one of %d flood REGs is refused" % (what, tally.get("answered", 0)), tally)
    check(not no_errors(results) and rc == 0 and
          srv.stdout() == json.dumps(expected_spec(metas)) + "\n",
          "%s: then 4 executors get the cluster" % what, rc, err[-2000:], *no_errors(results))
    check(peak < 64, "%s: server peak RSS %.0f MiB (bound 64)" % (what, peak))
    check(cpu - cpu0 < 3, "%s: server CPU %.2f s over the %d s flood (bound 3)"
          % (what, cpu - cpu0, REG_FLOOD_S))
    refusals = err.count("refused")
    check(0 < refusals <= tally.get("closed", 0) + 1,
          "%s: %d refusal lines for %d connections" % (what, refusals, tally.get("closed", 0) + 1),
          err[-2000:])


def scenario_regflood():
    # One connection sending REG {'pad': 'x' * 60000} as fast as it is
    # answered; then REGs that each carry their own executor id.
    reg_flood_case("pad", "60 kB REGs without an executor id")
    reg_flood_case("ids", "REGs with distinct executor ids beyond --size")


if __name__ == "__main__":
    sys.exit(reserve_test.main(globals()))
