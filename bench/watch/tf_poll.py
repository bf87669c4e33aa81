#!/usr/bin/env python3
"""What users do today to follow a job: TensorFlow's cluster_spec()
(bench/kubernetes/tf_baseline.py, imported, not copied) called again one
second after each call returns, and a line printed when its answer changes.

  tf_poll.py SELECTOR [PORT] [SECONDS]

Prints {"cluster": {...}} on stdout, flushed, whenever a successful answer
differs from the last successful one (the first answer included); a call
that raises (TF's RuntimeError for a pod not Running) changes nothing.
Stops by itself after SECONDS (default 3600).
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kubernetes"))
import tf_baseline  # noqa: E402


def main():
    selector = sys.argv[1]
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 8470
    until = time.monotonic() + (float(sys.argv[3]) if len(sys.argv) > 3 else 3600)
    last = None
    while time.monotonic() < until:
        try:
            spec = tf_baseline.cluster_spec({"worker": [selector]}, port)
        except RuntimeError:
            spec = last
        if spec != last:
            sys.stdout.write(json.dumps({"cluster": spec}, separators=(",", ":")) + "\n")
            sys.stdout.flush()
            last = spec
        time.sleep(1)


if __name__ == "__main__":
    main()
