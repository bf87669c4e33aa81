"""muster: who is in my training cluster?

Resolves the cluster of a distributed training job (the ClusterSpec of
TensorFlow, the ranks of PyTorch and JAX) through the chain of backends
configured in muster.conf(5) -- TF_CONFIG, Kubernetes, Slurm, Spark, static
lists, ... -- exactly as the `muster` program does.

    >>> import muster
    >>> cluster = muster.resolve()
    >>> cluster.cluster_spec
    {'worker': ['10.0.0.1:2222', '10.0.0.2:2222'], 'ps': ['10.0.0.3:2222']}
    >>> cluster.task_type, cluster.task_id
    ('worker', 1)

For repeated resolves keep a :class:`Context`.  Failures raise a subclass of
:class:`Error` naming the backend, the configuration's file:line and the
reason.  Framework glue lives in muster.tensorflow (a ClusterResolver),
muster.torch and muster.jax (process group setup), and muster.reserve (the
reservation server a Spark driver embeds).  :func:`local_accelerators` counts
this machine's GPUs and other accelerators.
"""
from muster.errors import (ConfigError, ConflictError, Error, NoSuchTaskError,  # noqa: F401
                           NotFoundError, PluginError, TryAgainError, UnavailableError)
from muster import _muster
from muster.cluster import Cluster, Context, resolve
from muster.devices import local_accelerators

__version__ = _muster.version()

__all__ = ["resolve", "Context", "Cluster", "local_accelerators", "Error", "NotFoundError", "UnavailableError",
           "TryAgainError", "ConfigError", "PluginError", "ConflictError", "NoSuchTaskError"]
