#!/usr/bin/env python3
"""Checks a Prometheus text exposition (format 0.0.4) as muster serves it.

usage: prom_check.py FILE      (exit 0 when it passes; the problems on stdout)

With promtool (Debian's prometheus package) `promtool check metrics` reads
it first.  Then, whether or not promtool is there, this parser checks what
the tests rely on: every line a comment or a sample; a family's HELP and
TYPE before its samples, each once; every name muster_...; a counter's
samples ending _total; a histogram's buckets cumulative, ending le="+Inf"
equal to _count, with _sum; label values quoted and escaped.  `load(text)`
gives the samples as {name or name{labels}: value} for the tests' checks.
"""
import math
import re
import shutil
import subprocess
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"'
SAMPLE = re.compile(r"^(%s)(\{(?:%s)(?:,%s)*\})? (\S+)( -?[0-9]+)?$" % (NAME, LABEL, LABEL))


def number(s):
    if s in ("+Inf", "Inf"):
        return math.inf
    if s == "-Inf":
        return -math.inf
    return float(s)  # NaN too


def load(text):
    """The samples, {"name" or 'name{l="v"}': value}; raises ValueError
    on the first problem."""
    samples, helps, types = {}, set(), {}
    if text and not text.endswith("\n"):
        raise ValueError("the last line has no line feed")
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            m = re.match(r"^# (HELP|TYPE) (%s) (.*)$" % NAME, line)
            if not m:
                if line.startswith("# HELP") or line.startswith("# TYPE"):
                    raise ValueError("line %d: a bad %s line" % (n, line[2:6]))
                continue
            kind, name, rest = m.groups()
            if kind == "HELP":
                if name in helps:
                    raise ValueError("line %d: a second HELP for %s" % (n, name))
                helps.add(name)
            else:
                if name in types:
                    raise ValueError("line %d: a second TYPE for %s" % (n, name))
                if rest not in ("counter", "gauge", "histogram", "summary", "untyped"):
                    raise ValueError("line %d: type %r" % (n, rest))
                if any(k.split("{")[0] in (name, name + "_bucket", name + "_sum",
                                           name + "_count") for k in samples):
                    raise ValueError("line %d: TYPE of %s after its samples" % (n, name))
                types[name] = rest
            continue
        if not line:
            continue
        m = SAMPLE.match(line)
        if not m:
            raise ValueError("line %d: not a sample: %r" % (n, line))
        name, labels, value = m.group(1), m.group(2) or "", m.group(7)
        family = re.sub(r"_(bucket|sum|count)$", "", name)
        family = family if types.get(family) == "histogram" else name
        if family not in types or family not in helps:
            raise ValueError("line %d: %s has no TYPE and HELP before it" % (n, name))
        if not name.startswith("muster_"):
            raise ValueError("line %d: %s is not named muster_..." % (n, name))
        if types[family] == "counter" and not name.endswith("_total"):
            raise ValueError("line %d: the counter %s does not end in _total" % (n, name))
        key = name + labels
        if key in samples:
            raise ValueError("line %d: %s twice" % (n, key))
        samples[key] = number(value)
    for family, kind in types.items():
        if kind != "histogram":
            continue
        buckets = [(number(re.search(r'le="([^"]*)"', k).group(1)), v)
                   for k, v in samples.items() if k.startswith(family + "_bucket{")]
        if not buckets or buckets[-1][0] != math.inf:
            raise ValueError("%s: no le=\"+Inf\" bucket last" % family)
        if any(b[0] >= c[0] or b[1] > c[1] for b, c in zip(buckets, buckets[1:])):
            raise ValueError("%s: buckets not increasing and cumulative" % family)
        if samples.get(family + "_count") != buckets[-1][1] or family + "_sum" not in samples:
            raise ValueError("%s: _count is not the +Inf bucket, or no _sum" % family)
    return samples


def promtool(text):
    """(ok, what promtool said); ok None when promtool is not installed."""
    tool = shutil.which("promtool")
    if tool is None:
        return None, "promtool is not installed"
    p = subprocess.run([tool, "check", "metrics"], input=text.encode(), capture_output=True)
    return p.returncode == 0, (p.stdout + p.stderr).decode(errors="replace")


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    ok, said = promtool(text)
    if ok is False:
        print("promtool check metrics: " + said)
        return 1
    try:
        load(text)
    except ValueError as e:
        print(e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
