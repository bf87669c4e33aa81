#!/usr/bin/env python3
"""A reservation server for the spark plugin's tests, written from a
description of the protocol, not from TensorFlowOnSpark's code.

Frames are a 4-byte big-endian length and one pickle made by this Python's
own pickle module (protocol 4 or 5 with memo ops: what real peers send).
Requests {'type': 'REG'|'QUERY'|'QINFO'|'STOP', 'data': ...} are answered
'OK', True/False, the list of registrations, 'ERR', as the reference
server does.  Single thread, select() over non-blocking sockets with a
buffer per connection.

With --auth-key-file it speaks muster's authenticated framing
(tfos/wire/frame.h): a hello frame "MSTRAUT1" + 16-byte nonce from each
side, then every frame is pickle | HMAC-SHA256 tag over
"muster-reservation-v1" | Ns | Nc | direction | sequence (8 bytes BE) | pickle.

Misbehaviours for the tests (--mode, applied to the request named by
--bad-on, default QINFO):
  normal      the reference behaviour
  hang        read requests, never answer
  close       close the connection instead of answering
  notpickle   answer a frame of bytes that are no pickle
  global      answer a pickle that names code (GLOBAL/REDUCE)
  huge        announce a 4 GiB frame, then stall
  truncated   announce 100 bytes, send 10, close
  deep        answer a list nested 10,000 deep
  wrongtype   answer 'OK' whatever was asked
  err         answer 'ERR'
  badlist     QINFO lists a registration without its fields; QUERY True
  racy        QUERY answers False even when complete, and a QUERY after the
              complete list was sent on that connection is closed, as
              muster reserve does once every executor has the list
  slowpoke    delay every answer by --delay seconds
  trickle     send every answer one byte per --delay seconds
"""

import argparse
import hashlib
import hmac
import json
import os
import pickle
import select
import socket
import struct
import sys
import time
from collections import OrderedDict

MAGIC = b"MSTRAUT1"
CONTEXT = b"muster-reservation-v1"


def load_key(path):
    with open(path, "rb") as f:
        key = f.read()
    if key.endswith(b"\r\n"):
        key = key[:-2]
    elif key.endswith(b"\n"):
        key = key[:-1]
    return key


class Conn:
    def __init__(self, sock, key):
        self.sock = sock
        self.inbuf = b""
        self.outbuf = b""
        self.key = key
        self.nonce_s = os.urandom(16) if key else None
        self.nonce_c = None
        self.send_seq = 0
        self.recv_seq = 0
        self.close_after_send = False
        self.due = []  # (time, bytes) answers held back
        self.next_byte = 0.0  # trickle: when the next byte may go
        if key:
            self.queue_frame(MAGIC + self.nonce_s)

    def queue_frame(self, payload):
        self.outbuf += struct.pack(">I", len(payload)) + payload

    def tag(self, direction, seq, body):
        msg = CONTEXT + self.nonce_s + self.nonce_c + direction + struct.pack(">Q", seq) + body
        return hmac.new(self.key, msg, hashlib.sha256).digest()

    def seal(self, body):
        if not self.key:
            return body
        t = self.tag(b"S", self.send_seq, body)
        self.send_seq += 1
        return body + t

    def open(self, payload):
        """The pickle of a received frame, or None to drop the connection."""
        if not self.key:
            return payload
        if self.nonce_c is None:
            if len(payload) != 24 or not payload.startswith(MAGIC):
                return None
            self.nonce_c = payload[8:]
            return b""  # the hello: nothing to answer
        if len(payload) < 32:
            return None
        body, t = payload[:-32], payload[-32:]
        if not hmac.compare_digest(t, self.tag(b"C", self.recv_seq, body)):
            return None
        self.recv_seq += 1
        return body


class Server:
    def __init__(self, args):
        self.args = args
        self.size = args.size
        self.key = load_key(args.auth_key_file) if args.auth_key_file else None
        self.regs = []
        for entry in json.loads(args.preload) if args.preload else []:
            self.regs.append(self.registration(entry))
        self.done = False
        self.log = open(args.log, "a") if args.log else None
        self.lsock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind((args.host, args.port))
        self.lsock.listen(128)
        self.lsock.setblocking(False)
        self.conns = {}

    @staticmethod
    def registration(entry):
        """A preloaded registration from JSON: TFoS's types for addr/authkey."""
        d = OrderedDict()
        for k in ("executor_id", "host", "job_name", "task_index", "port", "tb_pid",
                  "tb_port", "addr", "authkey"):
            if k in entry:
                d[k] = entry[k]
        d.setdefault("tb_pid", 0)
        d.setdefault("tb_port", 0)
        if isinstance(d.get("addr"), list):
            d["addr"] = tuple(d["addr"])
        d.setdefault("addr", "")
        d["authkey"] = bytes(16)
        for k, v in entry.items():
            if k not in d:
                d[k] = v
        return dict(d)

    def record(self, msg):
        if not self.log:
            return
        data = msg.get("data") if isinstance(msg, dict) else None
        line = {"type": msg.get("type") if isinstance(msg, dict) else None}
        if isinstance(data, dict):
            line["keys"] = list(data.keys())
            line["types"] = {k: type(v).__name__ for k, v in data.items()}
            line["data"] = {k: (v.hex() if isinstance(v, bytes) else v)
                            for k, v in data.items()}
        self.log.write(json.dumps(line) + "\n")
        self.log.flush()

    def misbehave(self, conn, kind):
        """True when the misbehaviour replaced the answer."""
        mode = self.args.mode
        if kind != self.args.bad_on or mode in ("normal", "badlist", "racy", "slowpoke", "trickle"):
            return False
        if mode == "hang":
            return True
        if mode == "close":
            conn.close_after_send = True
        elif mode == "notpickle":
            conn.queue_frame(conn.seal(b"this is not a pickle at all"))
        elif mode == "global":
            conn.queue_frame(conn.seal(pickle.dumps(OrderedDict(a=1))))
        elif mode == "huge":
            conn.outbuf += struct.pack(">I", 0xFFFFFFF0)
        elif mode == "truncated":
            conn.outbuf += struct.pack(">I", 100) + b"\x80\x03" + b"X" * 8
            conn.close_after_send = True
        elif mode == "deep":
            conn.queue_frame(conn.seal(b"\x80\x03" + b"]" * 10000 + b"a" * 9999 + b"."))
        elif mode == "wrongtype":
            conn.queue_frame(conn.seal(pickle.dumps("OK")))
        elif mode == "err":
            conn.queue_frame(conn.seal(pickle.dumps("ERR")))
        return True

    def answer(self, conn, msg):
        kind = msg.get("type") if isinstance(msg, dict) else None
        if self.misbehave(conn, kind):
            return
        if kind == "REG":
            self.regs.append(msg["data"])
            reply = "OK"
        elif kind == "QUERY" and self.args.mode == "racy":
            if getattr(conn, "saw_complete", False):
                conn.close_after_send = True
                return
            reply = False
        elif kind == "QUERY":
            reply = self.args.mode == "badlist" or len(self.regs) >= self.size
        elif kind == "QINFO":
            reply = list(self.regs)
            if self.args.mode == "racy" and len(self.regs) >= self.size:
                conn.saw_complete = True
            if self.args.mode == "badlist":
                reply.append({"no": "fields"})
        elif kind == "STOP":
            self.done = True
            reply = "OK"
        else:
            reply = "ERR"
        frame = conn.seal(pickle.dumps(reply))
        frame = struct.pack(">I", len(frame)) + frame
        if self.args.mode == "slowpoke":
            conn.due.append((time.monotonic() + self.args.delay, frame))
        else:
            conn.outbuf += frame

    def handle_input(self, conn):
        while len(conn.inbuf) >= 4:
            (n,) = struct.unpack(">I", conn.inbuf[:4])
            if n > (1 << 24):
                return False
            if len(conn.inbuf) < 4 + n:
                return True
            payload, conn.inbuf = conn.inbuf[4:4 + n], conn.inbuf[4 + n:]
            body = conn.open(payload)
            if body is None:
                return False  # unauthenticated or forged: drop it
            if body == b"":
                continue
            try:
                msg = pickle.loads(body)
            except Exception:
                return False
            if not isinstance(msg, dict) or "type" not in msg:
                return False
            self.record(msg)
            self.answer(conn, msg)
        return True

    def drop(self, sock):
        self.conns.pop(sock, None)
        sock.close()

    def run(self):
        end = time.monotonic() + self.args.lifetime
        tmp = self.args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % self.lsock.getsockname()[1])
        os.rename(tmp, self.args.port_file)
        while not self.done and time.monotonic() < end:
            now = time.monotonic()
            for c in self.conns.values():
                while c.due and c.due[0][0] <= now:
                    c.outbuf += c.due.pop(0)[1]
            rd = [self.lsock] + list(self.conns)
            trickle = self.args.mode == "trickle"
            wr = [s for s, c in self.conns.items()
                  if c.outbuf and (not trickle or c.next_byte <= now)]
            r, w, _ = select.select(rd, wr, [], 0.05)
            for s in w:
                c = self.conns.get(s)
                if c is None:
                    continue
                try:
                    if trickle:
                        c.next_byte = time.monotonic() + self.args.delay
                    n = s.send(c.outbuf[:1] if trickle else c.outbuf)
                    c.outbuf = c.outbuf[n:]
                except OSError:
                    self.drop(s)
                    continue
                if not c.outbuf and c.close_after_send:
                    self.drop(s)
            for s in r:
                if s is self.lsock:
                    try:
                        cs, _ = s.accept()
                    except OSError:
                        continue
                    cs.setblocking(False)
                    self.conns[cs] = Conn(cs, self.key)
                    continue
                c = self.conns.get(s)
                if c is None:
                    continue
                try:
                    data = s.recv(65536)
                except OSError:
                    self.drop(s)
                    continue
                if not data:
                    self.drop(s)
                    continue
                c.inbuf += data
                if not self.handle_input(c):
                    self.drop(s)
                elif c.close_after_send and not c.outbuf:
                    self.drop(s)
        for s in list(self.conns):
            self.drop(s)
        self.lsock.close()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file", required=True)
    p.add_argument("--auth-key-file")
    p.add_argument("--mode", default="normal")
    p.add_argument("--bad-on", default="QINFO")
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--preload", help="JSON list of registrations already made")
    p.add_argument("--log", help="append one JSON line per request")
    p.add_argument("--lifetime", type=float, default=120.0)
    Server(p.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
