#!/usr/bin/env python3
"""muster reserve against a Python select() server written from the same
protocol description, in one run: N concurrent executors on loopback (one
load process, bench/reserve/load), for each N and each server the time from
the first connect to the last complete list, the server's CPU time
(user + system, from wait4) and its peak RSS.

usage: bench.py MUSTER_BIN LOAD_BIN PYSERVER [N...]   (default N: 256 1024)
"""
import os
import subprocess
import sys
import tempfile
import time

TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
POLL_MS = 50  # the executors' QUERY interval (TFoS: 1 s; shorter stresses the server)


def run_one(kind, n, muster, load, pyserver, tmp):
    portfile = os.path.join(tmp, "port.%s.%d" % (kind, n))
    env = None
    if kind == "muster":
        # The program itself, not libtool's wrapper script (whose shell
        # would count in the peak RSS).
        real = os.path.join(os.path.dirname(muster), ".libs", os.path.basename(muster))
        if os.path.exists(real):
            env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(
                os.path.dirname(os.path.dirname(os.path.abspath(muster))), "core", ".libs"))
            muster = real
        cmd = [muster, "reserve", "--size", str(n), "--host", "127.0.0.1",
               "--timeout", "120", "--port-file", portfile]
        stop = []
    else:
        cmd = [sys.executable, pyserver, "--size", str(n), "--port-file", portfile]
        if kind == "python-epoll":
            cmd.append("--selector")
        stop = ["stop"]
    # GNU time measures the server: a child forked from this Python process
    # would carry Python's peak RSS through exec into ru_maxrss.
    timefile = os.path.join(tmp, "time.%s.%d" % (kind, n))
    if TIME:
        cmd = [TIME, "-f", "%U %S %M", "-o", timefile] + cmd
    srv = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 30
    while not os.path.exists(portfile):
        if time.monotonic() > deadline:
            return None, "server did not start"
        time.sleep(0.01)
    with open(portfile) as f:
        port = f.read().strip()
    try:
        ld = subprocess.run([load, port, str(n), str(POLL_MS)] + stop, capture_output=True,
                            text=True, timeout=300)
    except subprocess.TimeoutExpired:
        os.kill(srv.pid, 9)
        os.wait4(srv.pid, 0)
        return None, "load timed out"
    if ld.returncode != 0:
        try:
            os.kill(srv.pid, 9)
            os.wait4(srv.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        err = srv.stderr.read().decode(errors="replace").strip().splitlines()
        last = (ld.stderr.strip().splitlines()[-1:] or [""])[0]
        return None, "failed: %s%s" % (last, "; server: " + err[-1] if err else "")
    t0 = time.monotonic()
    _, status, ru = os.wait4(srv.pid, 0)
    srv.stderr.read()
    first, last, span, requests = ld.stdout.split()
    cpu_ms, rss_kb = (ru.ru_utime + ru.ru_stime) * 1000, ru.ru_maxrss
    if TIME:
        with open(timefile) as f:
            user, system, rss = f.read().split()[-3:]
        cpu_ms, rss_kb = (float(user) + float(system)) * 1000, int(rss)
    return {
        "span_ms": float(span),
        "cpu_ms": cpu_ms,
        "rss_kb": rss_kb,
        "requests": int(requests),
        "exit": os.waitstatus_to_exitcode(status),
    }, None


def main():
    muster, load, pyserver = sys.argv[1:4]
    sizes = [int(x) for x in sys.argv[4:]] or [256, 1024]
    tmp = tempfile.mkdtemp(prefix="muster-bench-reserve.")
    print("QUERY poll interval %d ms; span = first connect to last complete list; "
          "cpu and rss of the server%s" % (POLL_MS, " (GNU time)" if TIME else
                                           " (wait4: rss includes this Python's)"))
    print("%-6s %-14s %10s %10s %10s %9s %5s" % ("N", "server", "span ms", "cpu ms", "rss KiB",
                                                  "requests", "exit"))
    results = {}
    for n in sizes:
        for kind in ("muster", "python-select", "python-epoll"):
            r, why = run_one(kind, n, muster, load, pyserver, tmp)
            results[(n, kind)] = r
            if r is None:
                print("%-6d %-14s %s" % (n, kind, why))
            else:
                print("%-6d %-14s %10.1f %10.1f %10d %9d %5d" % (n, kind, r["span_ms"], r["cpu_ms"],
                                                                r["rss_kb"], r["requests"], r["exit"]))
            sys.stdout.flush()
        m = results[(n, "muster")]
        for kind in ("python-select", "python-epoll"):
            p = results[(n, kind)]
            if m and p and m["cpu_ms"] > 0:
                print("       muster uses %.1fx less CPU than %s" % (p["cpu_ms"] / m["cpu_ms"], kind))
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
