"""JAX's distributed runtime from muster's answer.

    muster.jax.initialize()

One process per training task, numbered as ``muster env --for jax``
numbers them (:meth:`muster.Cluster.env`, as muster.torch); the coordinator
is process 0's address.  Importable without JAX; calling needs it.
"""
from muster.cluster import resolve

__all__ = ["initialize"]


def initialize(*, config=None, strict=False, **kwargs) -> int:
    """Resolve, then ``jax.distributed.initialize(coordinator_address=...,
    num_processes=..., process_id=...)`` (any of them given in `kwargs` wins).
    Returns the process id.  `config` and `strict` are those of
    :func:`muster.resolve`; NoSuchTaskError when this process's own task is
    unknown or holds no rank."""
    try:
        import jax
    except ImportError as e:
        raise ImportError("muster.jax needs JAX (jax.distributed): %s" % e) from e
    env = resolve(config, strict=strict).env("jax")
    kwargs.setdefault("coordinator_address", env["JAX_COORDINATOR_ADDRESS"])
    kwargs.setdefault("num_processes", int(env["JAX_NUM_PROCESSES"]))
    kwargs.setdefault("process_id", int(env["JAX_PROCESS_ID"]))
    jax.distributed.initialize(**kwargs)
    return kwargs["process_id"]
