#!/usr/bin/env python3
"""Pickle fixtures for tests/reservation/test_pickle_python, made by this
machine's own Python at test time (never stored in the source tree).

  gen_fixtures.py gen DIR     write DIR/manifest and the pickles it names
  gen_fixtures.py check DIR   load each DIR/<name>.p<N>.ours (our C encoder's
                              output) and compare it with the object

manifest lines (space separated):
  ok FILE CANON [OPT3]   FILE decodes to the value whose canonical form is
                         in CANON; OPT3 (optional) holds
                         pickletools.optimize(pickle.dumps(obj, 3)), which
                         our encoder must reproduce byte for byte
  reject FILE OPNAME     decoding FILE fails, naming opcode OPNAME

and DIR/texts, one str pickle a line, with this Python's verdict on it:
  HEX ok CANON           pickle.loads accepts the pickle HEX: CANON
  HEX reject             pickle.loads refuses it (not UTF-8, not ASCII)

The canonical form (same rules in test_pickle_python.c):
  None N   True T   False F   int i<decimal>   float f<16 hex digits of the
  big-endian IEEE bits>   str s<len>:<hex of UTF-8>   bytes b<len>:<hex>
  list [a,b]   tuple (a,b)   dict {k:v,k:v} in insertion order
"""
import os
import pickle
import pickletools
import struct
import sys


def canon(v):
    if v is None:
        return "N"
    if v is True:
        return "T"
    if v is False:
        return "F"
    if isinstance(v, int):
        return "i%d" % v
    if isinstance(v, float):
        return "f" + struct.pack(">d", v).hex()
    if isinstance(v, str):
        b = v.encode("utf-8", "surrogatepass")
        return "s%d:%s" % (len(b), b.hex())
    if isinstance(v, (bytes, bytearray)):
        return "b%d:%s" % (len(v), bytes(v).hex())
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + ",".join(canon(x) for x in v) + ")"
    if isinstance(v, dict):
        return "{" + ",".join(canon(k) + ":" + canon(x) for k, x in v.items()) + "}"
    raise TypeError(type(v))


def registration(executor_id, host, job, index, port, mgr_port, authkey):
    # As TFSparkNode.run builds it: `addr` reuses the
    # very `host` object, so the pickler writes a memo GET for it.
    host = "".join(host)  # a fresh (not interned) str object
    meta = {
        "executor_id": executor_id,
        "host": host,
        "job_name": job,
        "task_index": index,
        "port": port,
        "tb_pid": 0,
        "tb_port": 0,
        "addr": (host, mgr_port) if job in ("ps", "evaluator") else "/tmp/pymp-x/listener-1",
    }
    if authkey is not None:
        meta["authkey"] = authkey
    return meta


def objects():
    key = bytes(range(0x00, 0x100, 0x11))
    shared = {"a": 1}
    ints = [0, 1, 255, 256, 65535, 65536, -1, -255, -256, 2**31 - 1, -2**31,
            2**31, -2**31 - 1, 2**40, -2**40, 2**63 - 1, -2**63]
    yield "scalars", [None, True, False, 1.5, -0.0, 1e100, float("inf"), "", "hello",
                      "caf\u00e9 \u20ac \U0001f600", "a\\b\nc\r\x00 '\"", "x" * 300], True
    yield "ints", ints, True
    yield "containers", {
        "empty_list": [], "empty_dict": {}, "empty_tuple": (),
        "t1": (1,), "t2": (1, "two"), "t3": (1, 2, 3), "t4": (1, 2, 3, 4),
        "nested": {"a": [1, {"b": (None, [])}]},
        1: "int key", (1, "x"): "tuple key", None: "none key", 2.5: "float key",
    }, True
    yield "biglist", list(range(2001)), True          # batches of 1000, 1000 and 1
    yield "bigdict", {"k%d" % i: i for i in range(1001)}, True  # batches of 1000 and 1
    yield "bytes", {"short": b"\x00\x01", "long": bytes(range(256)) * 2, "empty": b""}, True
    yield "query", {"type": "QUERY"}, True
    yield "ok", "OK", True
    yield "reg", {"type": "REG", "data": registration(0, "10.0.0.4", "ps", 0, 40001, 39999,
                                                      bytes(range(0, 256, 17)))}, False
    yield "reg_nokey", {"type": "REG", "data": registration(2, "10.0.0.5", "evaluator", 0,
                                                            40003, 39998, None)}, False
    yield "qinfo", [registration(i, "10.0.0.%d" % (i + 1), "worker", i, 40000 + i, 0, key)
                    for i in range(3)], False
    yield "shared", [shared, shared, (shared,)], False


def has_bytes(v):
    if isinstance(v, bytes):
        return True
    if isinstance(v, (list, tuple)):
        return any(has_bytes(x) for x in v)
    if isinstance(v, dict):
        return any(has_bytes(k) or has_bytes(x) for k, x in v.items())
    return False


def gen(d):
    lines = []
    for name, obj, exact in objects():
        with open(os.path.join(d, name + ".canon"), "w") as f:
            f.write(canon(obj))
        opt3 = ""
        if exact:
            opt3 = name + ".opt3"
            with open(os.path.join(d, opt3), "wb") as f:
                f.write(pickletools.optimize(pickle.dumps(obj, 3)))
        for proto in range(0, pickle.HIGHEST_PROTOCOL + 1):
            fname = "%s.p%d" % (name, proto)
            with open(os.path.join(d, fname), "wb") as f:
                f.write(pickle.dumps(obj, proto))
            if proto < 3 and has_bytes(obj):
                # Python 3 writes bytes below protocol 3 as _codecs.encode(...)
                lines.append("reject %s GLOBAL" % fname)
            else:
                lines.append(("ok %s %s.canon %s" % (fname, name, opt3)).rstrip())
    # A real ps REG as the 3.8+ default protocol writes it: it must carry
    # the BINGET back-reference to the host string.
    reg4 = pickle.dumps(objects_by_name()["reg"], 4)
    ops = [op.name for op, _, _ in pickletools.genops(reg4)]
    assert "BINGET" in ops, "the ps REG carries no memo back-reference"
    with open(os.path.join(d, "manifest"), "w") as f:
        f.write("\n".join(lines) + "\n")
    texts(d)


# Bytes around every boundary of UTF-8 (and of ASCII): each sequence below
# goes into a str opcode, and Python says whether it loads.
LEADS = [0x00, 0x41, 0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee,
         0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf7, 0xf8, 0xfe, 0xff]
TRAILS = [0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff]


def text_sequences():
    for a in LEADS:
        yield bytes([a])
        for b in TRAILS:
            yield bytes([a, b])
            for c in TRAILS:
                yield bytes([a, b, c])
    for a in (0xf0, 0xf1, 0xf3, 0xf4, 0xf5):
        for b in (0x7f, 0x80, 0x8f, 0x90, 0xbf, 0xc0):
            for c in (0x7f, 0x80, 0xbf, 0xc0):
                for d in (0x7f, 0x80, 0xbf, 0xc0):
                    yield bytes([a, b, c, d])


def text_pickles():
    for seq in text_sequences():
        yield b"\x80\x04\x8c" + bytes([len(seq)]) + seq + b"."           # SHORT_BINUNICODE
        padded = b"12345678" + seq + b"9abcdefgh"  # past the ASCII fast path
        yield b"X" + struct.pack("<I", len(padded)) + padded + b"."      # BINUNICODE
    for seq in (b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf4\x8f\xbf\xbf", b"\xc0\x80", b"\xff"):
        yield b"\x80\x04\x8d" + struct.pack("<Q", len(seq)) + seq + b"."  # BINUNICODE8
    for a in LEADS:
        yield b"\x80\x02U\x01" + bytes([a]) + b"."                        # SHORT_BINSTRING
        yield b"T\x01\x00\x00\x00" + bytes([a]) + b"."                   # BINSTRING
        yield b"S'\\x%02x'\n." % a                                       # STRING, escaped
        yield b"S'" + bytes([a]) + b"'\n." if a not in (0x00, 0x27) else b"N."
        yield b"V\\u%04x\n." % (0xd800 + a)                                # UNICODE: surrogates
        yield b"V" + bytes([a]) + b"\n." if a != 0x0a else b"N."            # UNICODE: Latin-1


def texts(d):
    lines = []
    for p in text_pickles():
        try:
            lines.append("%s ok %s" % (p.hex(), canon(pickle.loads(p))))
        except (UnicodeDecodeError, pickle.UnpicklingError, ValueError):
            lines.append("%s reject" % p.hex())
    with open(os.path.join(d, "texts"), "w") as f:
        f.write("\n".join(lines) + "\n")


def objects_by_name():
    return {name: obj for name, obj, _ in objects()}


def check(d):
    objs = objects_by_name()
    bad = 0
    checked = 0
    for fname in sorted(os.listdir(d)):
        if not fname.endswith(".ours"):
            continue
        name = fname.split(".")[0]
        with open(os.path.join(d, fname), "rb") as f:
            data = f.read()
        got = pickle.loads(data)
        checked += 1
        if got != objs[name] or canon(got) != canon(objs[name]):
            print("python loads %s: %r != %r" % (fname, got, objs[name]), file=sys.stderr)
            bad += 1
    if checked == 0:
        print("nothing to check", file=sys.stderr)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("gen", "check"):
        print("usage: gen_fixtures.py gen|check DIR", file=sys.stderr)
        sys.exit(2)
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
        sys.exit(0)
    sys.exit(check(sys.argv[2]))
