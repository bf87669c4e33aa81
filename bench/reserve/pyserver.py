#!/usr/bin/env python3
"""A reservation server as TensorFlowOnSpark's reservation.Server is
written (reservation.py): one thread, select() over the listener and every
client, then a blocking read of the whole frame in 1024-byte chunks;
replies pickled at the default protocol; REG appends, QUERY answers
len >= required, QINFO the list, STOP ends the loop.

usage: pyserver.py --size N --port-file FILE [--selector]
--selector uses selectors.DefaultSelector (epoll) instead of select.select,
which cannot watch a descriptor numbered 1024 or more (FD_SETSIZE).
"""
import argparse
import os
import pickle
import resource
import select
import selectors
import socket
import struct

BUFSIZE = 1024


def receive(sock):
    # As the reference: the length from the first chunk, then chunks until
    # exactly that many bytes arrived.
    buf = sock.recv(BUFSIZE)
    if not buf:
        raise EOFError("socket closed")
    (msg_len,) = struct.unpack(">I", buf[:4])
    data = buf[4:]
    remaining = msg_len - len(data)
    while remaining > 0:
        chunk = sock.recv(min(BUFSIZE, remaining))
        if not chunk:
            raise EOFError("socket closed")
        data += chunk
        remaining -= len(chunk)
    return pickle.loads(data)


def send(sock, msg):
    data = pickle.dumps(msg)
    sock.sendall(struct.pack(">I", len(data)) + data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--selector", action="store_true")
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, a.size + 64), hard))

    reservations = []
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(socket.SOMAXCONN)
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.getsockname()[1]))
    os.rename(tmp, a.port_file)

    done = False
    clients = [srv]
    sel = None
    if a.selector:
        sel = selectors.DefaultSelector()
        sel.register(srv, selectors.EVENT_READ)

    def handle(sock):
        nonlocal done
        msg = receive(sock)
        t = msg["type"]
        if t == "REG":
            reservations.append(msg["data"])
            send(sock, "OK")
        elif t == "QUERY":
            send(sock, len(reservations) >= a.size)
        elif t == "QINFO":
            send(sock, reservations)
        elif t == "STOP":
            done = True
            send(sock, "OK")
        else:
            send(sock, "ERR")

    while not done:
        if sel is None:
            readable, _, _ = select.select(clients, [], [], 1.0)
        else:
            readable = [k.fileobj for k, _ in sel.select(1.0)]
        for sock in readable:
            if sock is srv:
                c, _ = srv.accept()
                clients.append(c)
                if sel is not None:
                    sel.register(c, selectors.EVENT_READ)
                continue
            try:
                handle(sock)
            except Exception:
                sock.close()
                clients.remove(sock)
                if sel is not None:
                    sel.unregister(sock)
    srv.close()


if __name__ == "__main__":
    main()
