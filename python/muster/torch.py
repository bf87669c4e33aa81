"""PyTorch's process group from muster's answer.

    rank = muster.torch.init_process_group("gloo")

One process per training task, numbered as ``muster env --for pytorch``
numbers them (:meth:`muster.Cluster.env`): rank 0 is the chief (else
`master`, else the first task), the others follow in the cluster's order;
the TCP store listens on rank 0's address.  Importable without PyTorch;
calling needs it.
"""
from muster.cluster import resolve

__all__ = ["init_process_group"]


def init_process_group(backend=None, *, config=None, strict=False, **kwargs) -> int:
    """Resolve, then ``torch.distributed.init_process_group(backend, ...)``
    with the rank, world size and ``init_method="tcp://MASTER:PORT"`` derived
    from the cluster (any of them given in `kwargs` wins; with ``store=`` no
    init_method is added).  Returns the rank.
    `config` and `strict` are those of :func:`muster.resolve`; NoSuchTaskError
    when this process's own task is unknown or holds no rank."""
    try:
        import torch.distributed as dist
    except ImportError as e:
        raise ImportError("muster.torch needs PyTorch (torch.distributed): %s" % e) from e
    env = resolve(config, strict=strict).env("pytorch")
    host = env["MASTER_ADDR"]
    if ":" in host:
        host = "[%s]" % host
    if kwargs.get("store") is None:  # torch refuses a store and an init_method together
        kwargs.setdefault("init_method", "tcp://%s:%s" % (host, env["MASTER_PORT"]))
    kwargs.setdefault("rank", int(env["RANK"]))
    kwargs.setdefault("world_size", int(env["WORLD_SIZE"]))
    dist.init_process_group(backend, **kwargs)
    return kwargs["rank"]
