#!/usr/bin/env python3
"""A bounded registration flood against a loopback reservation server.

usage: reg_flood.py PORT SECONDS KIND

From source address 127.0.0.2 to 127.0.0.1:PORT it sends REG requests, each
as soon as the last one is answered, on one connection (a new one when the
server closes it), for SECONDS.  KIND is what each registers:
  pad   {'pad': 'x' * 60000}: no executor id, no host, 60 kB
  ids   a complete registration with its own executor id, from 1,000 up (far
        beyond any --size here), carrying a 3,000-byte field
At the end it prints one line,
"sent N answered A ok K closed C": requests sent, replies read, replies
'OK', connections the server closed.  Duration is bounded (60 s) and only
loopback is targeted.
"""
import pickle
import socket
import struct
import sys
import time

TARGET = "127.0.0.1"
SOURCE = "127.0.0.2"


def registration(kind, i):
    if kind == "pad":
        return {"pad": "x" * 60000}
    return {"executor_id": 1000 + i, "host": SOURCE, "job_name": "worker", "task_index": i,
            "port": 1 + i % 65535, "tb_pid": 0, "tb_port": 0, "addr": "/tmp/x", "authkey": b"k" * 16,
            "pad": "y" * 3000}


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def connect(port):
    s = socket.socket()
    s.bind((SOURCE, 0))
    s.settimeout(10)
    s.connect((TARGET, port))
    return s


def main():
    port, seconds, kind = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    assert 0 < seconds <= 60 and kind in ("pad", "ids"), "reg_flood.py: beyond its bounds"
    end = time.monotonic() + seconds
    sent = answered = ok = closed = 0
    sock = connect(port)
    # The pad frame is built once: the flood is as fast as the server lets it be.
    pad = pickle.dumps({"type": "REG", "data": registration("pad", 0)})
    while time.monotonic() < end:
        payload = pad if kind == "pad" else pickle.dumps({"type": "REG",
                                                          "data": registration(kind, sent)})
        try:
            if sock is None:
                sock = connect(port)
            sock.sendall(struct.pack(">I", len(payload)) + payload)
            sent += 1
            (n,) = struct.unpack(">I", recv_exact(sock, 4))
            reply = pickle.loads(recv_exact(sock, n))
            answered += 1
            ok += reply == "OK"
        except (OSError, EOFError):
            if sock is None:
                time.sleep(0.01)  # the server is not accepting
                continue
            closed += 1
            sock.close()
            sock = None
    if sock is not None:
        sock.close()
    print("sent %d answered %d ok %d closed %d" % (sent, answered, ok, closed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
