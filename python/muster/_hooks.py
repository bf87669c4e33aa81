"""What the C extension calls back into: building exceptions, logging."""
import logging
import re

from muster import errors

_CLASSES = {
    -2: errors.Error,
    -3: errors.ConfigError,
    -4: errors.PluginError,
    -5: errors.PluginError,
    -6: errors.NotFoundError,
    -7: errors.UnavailableError,
    -8: errors.TryAgainError,
    -9: errors.NoSuchTaskError,
    -10: errors.ConflictError,
}

# "PLUGIN(INSTANCE): STATUS: " opens each backend's part of a message.
_BACKEND = re.compile(r"(?:^|: |; )(?P<plugin>[A-Za-z0-9_.+-]+)\((?P<instance>[^()]*)\): "
                      r"(?:(?:notfound|unavail|tryagain|error|success): )?")
# "FILE:LINE: reason", as configuration errors begin.
_LEADING = re.compile(r"(?P<file>[^\s:()][^:()]*):(?P<line>\d+): (?P<rest>.*)\Z", re.S)
# "... (FILE:LINE)", as a backend's failure ends (the chain may add more).
_TRAILING = re.compile(r"(?P<rest>.*) \((?P<file>[^()]+?):(?P<line>\d+)\)(?P<tail>;[^()]*)?\Z",
                       re.S)
# "... is given by both A ('x') and B ('y')": B brought the conflicting task.
_CONFLICT = re.compile(r" and (?P<instance>\S+) \('[^']*'\)\Z")


def error(code, message, entries):
    """The exception for a C error `code` with its `message`; `entries` is the
    chain as [(plugin, instance, config_file, config_line)] or None."""
    cls = _CLASSES.get(code, errors.Error)
    fields = {"backend": None, "instance": None, "file": None, "line": None}
    rest = message
    found = list(_BACKEND.finditer(message))
    if found:
        last = found[-1]
        fields["backend"] = last.group("plugin")
        fields["instance"] = last.group("instance")
        rest = message[last.end():]
    m = _TRAILING.match(rest)
    if m:
        rest = m.group("rest")
        fields["file"], fields["line"] = m.group("file"), int(m.group("line"))
    else:
        m = _LEADING.match(message)
        if m:
            fields["file"], fields["line"] = m.group("file"), int(m.group("line"))
            if not found:
                rest = m.group("rest")
    m = _CONFLICT.search(message)
    if m and entries:
        for plugin, instance, file, line in entries:
            if instance == m.group("instance"):
                fields.update(backend=plugin, instance=instance, file=file, line=line)
    return cls(message, code=code, reason=rest, **fields)


_LEVELS = {3: logging.ERROR, 4: logging.WARNING, 5: logging.INFO, 6: logging.INFO,
           7: logging.DEBUG}
_logger = logging.getLogger("muster")


def log(level, message):
    """A message of the library, at its syslog `level`, to logging's "muster"."""
    _logger.log(_LEVELS.get(level, logging.WARNING), "%s", message)
