"""The exceptions of muster: one class per way a resolve fails.

Each matches an exit status of the `muster` program, so that a Python
launcher and a shell script read a failure the same way.
"""

__all__ = ["Error", "NotFoundError", "UnavailableError", "TryAgainError", "ConfigError",
           "PluginError", "ConflictError", "NoSuchTaskError"]


class Error(Exception):
    """A failure of muster, as `muster` prints it on stderr.

    Attributes:
      message: the library's whole message.
      reason: what went wrong, without the backend and file:line around it.
      backend: the plugin that failed (``"kubernetes"``), or None.
      instance: its entry's name in the configuration, or None.
      file, line: where in the configuration that entry (or the error) is,
        or None.
      code: the library's MUSTER_E* code (negative).
      exit_status: the `muster` program's exit status for this failure.
    """

    exit_status = 70

    def __init__(self, message, *, code=None, reason=None, backend=None, instance=None,
                 file=None, line=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.reason = reason if reason is not None else message
        self.backend = backend
        self.instance = instance
        self.file = file
        self.line = line

    def __str__(self):
        where = "%s:%s" % (self.file, self.line)
        if self.file is not None and where not in self.message:
            return "%s (%s)" % (self.message, where)
        return self.message


class NotFoundError(Error):
    """No backend recognised this environment (exit status 1)."""
    exit_status = 1


class UnavailableError(Error):
    """A backend failed or could not be reached (exit status 2)."""
    exit_status = 2


class TryAgainError(Error):
    """The cluster is not ready yet, e.g. pods still Pending (exit status 3)."""
    exit_status = 3


class ConfigError(Error):
    """The configuration is invalid (exit status 4)."""
    exit_status = 4


class PluginError(Error):
    """A plugin could not be loaded, or speaks another ABI (exit status 4)."""
    exit_status = 4


class ConflictError(Error):
    """Merged backends disagree about a task (exit status 5)."""
    exit_status = 5


class NoSuchTaskError(Error, ValueError):
    """No such job or task in the cluster (exit status 5).

    Also a ValueError, which TensorFlow raises for the same question.
    """
    exit_status = 5
