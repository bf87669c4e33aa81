"""Ranks for the frameworks that number processes (PyTorch, JAX): one
process per training task, the master task first."""
from typing import List, NamedTuple, Tuple

from muster.errors import NoSuchTaskError

# Jobs that hold no training process.
_NOT_TRAINING = ("ps", "evaluator")


class Layout(NamedTuple):
    rank: int
    world_size: int
    master_host: str
    master_port: int


def _split(address: str) -> Tuple[str, int]:
    host, _, port = address.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def _tasks(spec) -> List[Tuple[str, int, str]]:
    out = []
    for job, tasks in spec.items():
        if job in _NOT_TRAINING:
            continue
        items = enumerate(tasks) if isinstance(tasks, list) else sorted(tasks.items())
        out.extend((job, i, a) for i, a in items)
    return out


def layout(cluster) -> Layout:
    """Node 0 is the chief (else `master`, else the first training task); the
    other training tasks follow in the cluster's job order, then index."""
    tasks = _tasks(cluster.cluster_spec)
    if not tasks:
        raise NoSuchTaskError("the cluster has no training task (only %s)"
                              % ", ".join(_NOT_TRAINING))
    for first in ("chief", "master"):
        lead = [t for t in tasks if t[0] == first]
        if lead:
            tasks.remove(lead[0])
            tasks.insert(0, lead[0])
            break
    own = (cluster.task_type, cluster.task_id)
    if own[0] is None or own[1] is None:
        raise NoSuchTaskError("this process's own task is unknown to the backend that "
                              "answered (%s)" % cluster.source)
    ranks = [i for i, t in enumerate(tasks) if (t[0], t[1]) == own]
    if not ranks:
        raise NoSuchTaskError("task %s:%d is not a training task (%s hold no rank)"
                              % (own[0], own[1], ", ".join(_NOT_TRAINING)))
    host, port = _split(tasks[0][2])
    return Layout(ranks[0], len(tasks), host, port)
