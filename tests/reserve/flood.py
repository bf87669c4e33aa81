#!/usr/bin/env python3
"""A bounded connection flood against a loopback reservation server.

usage: flood.py PORT IDLE LORIS SECONDS READYFILE

From source address 127.0.0.2 to 127.0.0.1:PORT it opens IDLE connections
that never send a byte and LORIS connections that send one byte of a frame
every second and never complete it (the frame announces 60,000 bytes).  It
never reconnects, holds them for SECONDS, closes them all and exits by
itself.  Once every connect has been issued it writes READYFILE.  Counts and
duration are bounded (2,500 sockets, 120 s) and only loopback is targeted.
"""
import os
import resource
import socket
import struct
import sys
import time

TARGET = "127.0.0.1"
SOURCE = "127.0.0.2"


def main():
    port, idle, loris, seconds = (int(a) for a in sys.argv[1:5])
    ready = sys.argv[5]
    assert idle + loris <= 2500 and 0 < seconds <= 120, "flood.py: beyond its bounds"
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < idle + loris + 64:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    end = time.monotonic() + seconds
    socks, drips = [], []
    for i in range(idle + loris):
        s = socket.socket()
        s.bind((SOURCE, 0))
        s.setblocking(False)
        s.connect_ex((TARGET, port))  # completes in the kernel's backlog
        socks.append(s)
        if i >= idle:
            drips.append([s, 0])
    with open(ready + ".tmp", "w") as f:
        f.write("%d\n" % len(socks))
    os.rename(ready + ".tmp", ready)
    # The header announces 60,000 bytes, sent one byte a second.
    frame = struct.pack(">I", 60000) + b"\x80" * 60000
    while time.monotonic() < end:
        alive = []
        for d in drips:
            try:
                d[1] += d[0].send(frame[d[1]:d[1] + 1])
            except BlockingIOError:
                pass  # still in the backlog
            except OSError:
                continue  # closed by the server: never reconnected
            alive.append(d)
        drips = alive
        time.sleep(min(1.0, max(0.0, end - time.monotonic())))
    for s in socks:
        s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
