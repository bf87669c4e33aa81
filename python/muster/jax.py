"""JAX's distributed runtime from muster's answer.

    muster.jax.initialize()

One process per training task, numbered as muster.torch numbers them; the
coordinator is process 0's address.  Importable without JAX; calling needs it.
"""
from muster.cluster import resolve
from muster._ranks import layout

__all__ = ["initialize"]


def initialize(*, config=None, strict=False, **kwargs) -> int:
    """Resolve, then ``jax.distributed.initialize(coordinator_address=...,
    num_processes=..., process_id=...)`` (any of them given in `kwargs` wins).
    Returns the process id.  `config` and `strict` are those of
    :func:`muster.resolve`."""
    try:
        import jax
    except ImportError as e:
        raise ImportError("muster.jax needs JAX (jax.distributed): %s" % e) from e
    lay = layout(resolve(config, strict=strict))
    host = "[%s]" % lay.master_host if ":" in lay.master_host else lay.master_host
    kwargs.setdefault("coordinator_address", "%s:%d" % (host, lay.master_port))
    kwargs.setdefault("num_processes", lay.world_size)
    kwargs.setdefault("process_id", lay.rank)
    jax.distributed.initialize(**kwargs)
    return kwargs["process_id"]
