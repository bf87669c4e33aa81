# A torchrun worker: asks muster, with the shipped chain, what torchrun
# gave it, and prints one line per variable muster got differently.
import os
import subprocess
import sys

muster, conf = sys.argv[1], sys.argv[2]
names = sys.argv[3].split(",")
env = subprocess.run([muster, "-c", conf, "env", "--for", "pytorch", "--format", "dotenv"],
                     capture_output=True, text=True)
got = dict(line.split("=", 1) for line in env.stdout.splitlines() if "=" in line)
rank = os.environ["RANK"]
bad = [f"{n}: torchrun {os.environ.get(n)!r}, muster {got.get(n)!r}"
       for n in names if got.get(n) != os.environ.get(n)]
resolve = subprocess.run([muster, "-c", conf, "resolve"], capture_output=True, text=True)
print(f"rank {rank}: env exit {env.returncode}, resolve exit {resolve.returncode}: "
      + ("same" if not bad and env.returncode == 0 else "; ".join(bad) + env.stderr.strip()),
      flush=True)
if resolve.returncode != 0:
    print(f"rank {rank}: resolve says {resolve.stderr.strip()}", flush=True)
