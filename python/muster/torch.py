"""PyTorch's process group from muster's answer.

    rank = muster.torch.init_process_group("gloo")

One process per training task: rank 0 is the chief (else `master`, else the
first task), the others follow in the cluster's order; the TCP store listens
on rank 0's address.  Importable without PyTorch; calling needs it.
"""
from muster.cluster import resolve
from muster._ranks import layout

__all__ = ["init_process_group"]


def init_process_group(backend=None, *, config=None, strict=False, **kwargs) -> int:
    """Resolve, then ``torch.distributed.init_process_group(backend, ...)``
    with the rank, world size and ``init_method="tcp://MASTER:PORT"`` derived
    from the cluster (any of them given in `kwargs` wins).  Returns the rank.
    `config` and `strict` are those of :func:`muster.resolve`."""
    try:
        import torch.distributed as dist
    except ImportError as e:
        raise ImportError("muster.torch needs PyTorch (torch.distributed): %s" % e) from e
    lay = layout(resolve(config, strict=strict))
    host = "[%s]" % lay.master_host if ":" in lay.master_host else lay.master_host
    kwargs.setdefault("init_method", "tcp://%s:%d" % (host, lay.master_port))
    kwargs.setdefault("rank", lay.rank)
    kwargs.setdefault("world_size", lay.world_size)
    dist.init_process_group(backend, **kwargs)
    return kwargs["rank"]
