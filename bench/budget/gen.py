#!/usr/bin/env python3
"""Writes the budget benchmark's inputs into DIR, at scale N (default 300,000).

  gen.py DIR [N]

  jobs.json      TF_CONFIG of N one-task jobs, the own task in the last job
  tasks.json     TF_CONFIG of one job with N tasks, the own task the last
  merge-a.json,  two TF_CONFIGs of N/3 distinct jobs each (100,000 at the
  merge-b.json   default scale), merged by two tf_config entries
  *.conf         one chain per shape; static-chain.conf is N/300 static
                 entries (1,000 at the default scale) each merging its own job,
                 static-merge.conf the same with 10,000 entries (N/30)
"""
import json
import os
import sys


def tf_config(cluster, job, index):
    return json.dumps({"cluster": cluster, "task": {"type": job, "index": index}},
                      separators=(",", ":"))


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def tf_chain(entries):
    out = ["chain = ("]
    for i, (name, path) in enumerate(entries):
        out.append('  { plugin = "tf_config"; name = "%s"; on_success = "merge"; '
                   'config = { file = "%s"; }; }%s'
                   % (name, path, "," if i + 1 < len(entries) else ""))
    out.append(");")
    return "\n".join(out) + "\n"


def static_chain(n):
    out = ["chain = ("]
    for i in range(n):
        out.append('  { plugin = "static"; name = "s%d"; on_success = "merge"; '
                   'config = { jobs = { j%d = ["h%d:2222"]; }; }; }%s'
                   % (i, i, i, "," if i + 1 < n else ""))
    out.append(");")
    return "\n".join(out) + "\n"


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 300000
    os.makedirs(out, exist_ok=True)
    p = lambda name: os.path.join(out, name)

    write(p("jobs.json"), tf_config({"job%d" % i: ["host%d:2222" % i] for i in range(n)},
                                    "job%d" % (n - 1), 0))
    write(p("tasks.json"), tf_config({"worker": ["host%d:2222" % i for i in range(n)]},
                                     "worker", n - 1))
    third = n // 3
    write(p("merge-a.json"), tf_config({"a%d" % i: ["a%d:2222" % i] for i in range(third)},
                                       "a0", 0))
    write(p("merge-b.json"), tf_config({"b%d" % i: ["b%d:2222" % i] for i in range(third)},
                                       "b0", 0))
    write(p("jobs.conf"), tf_chain([("tf_config", p("jobs.json"))]))
    write(p("tasks.conf"), tf_chain([("tf_config", p("tasks.json"))]))
    write(p("merge.conf"), tf_chain([("a", p("merge-a.json")), ("b", p("merge-b.json"))]))
    write(p("static-chain.conf"), static_chain(max(n // 300, 2)))
    write(p("static-merge.conf"), static_chain(max(n // 30, 2)))


main()
