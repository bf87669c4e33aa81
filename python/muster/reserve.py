"""The reservation server a Spark driver embeds (TensorFlowOnSpark's protocol).

    with muster.reserve.Server(num_executors) as server:
        # start the executors with server.environ (TFOS_SERVER_HOST/PORT);
        # each resolves through a `spark` entry of muster.conf
        cluster_spec = server.wait()

Served by libmuster in a background thread, GIL released: no Python code runs
per connection, and nothing received is unpickled by Python.
"""
import json
import os
import socket
import tempfile
import threading
from typing import Dict, List, Optional, Union

from muster import _muster

__all__ = ["Server"]


def _local_ip() -> str:
    """The address other hosts reach this one by (no packet is sent)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


class Server:
    """A reservation server for `size` executors.

    `host` is the address to bind (None: every IPv4 interface, as
    TensorFlowOnSpark), `port` 0 any free port.  `timeout` in seconds (None:
    600, as TensorFlowOnSpark; negative: forever) bounds :meth:`wait`.
    `auth_key` (bytes or str), when given, makes every frame carry an
    HMAC-SHA256 tag; then only muster's spark backend with the same key in
    its `auth_key_file` can register.  Bound and listening once constructed.
    """

    def __init__(self, size: int, host: Optional[str] = None, port: int = 0,
                 timeout: Optional[float] = None, auth_key: Union[bytes, str, None] = None):
        if not hasattr(_muster, "ReserveServer"):
            raise RuntimeError("this muster was built without the reservation server "
                               "(libcrypto was not found)")
        timeout_ms = 600000 if timeout is None else -1 if timeout < 0 else int(timeout * 1000)
        self._bind_host = host
        self._thread: Optional[threading.Thread] = None
        self._error: Optional[BaseException] = None
        if auth_key is None:
            self._srv = _muster.ReserveServer(size, host, port, timeout_ms, None)
            return
        key = auth_key.encode() if isinstance(auth_key, str) else bytes(auth_key)
        fd, path = tempfile.mkstemp(prefix="muster-key-")  # 0600: the key file must be private
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(key)
            self._srv = _muster.ReserveServer(size, host, port, timeout_ms, path)
        finally:
            os.unlink(path)

    @property
    def host(self) -> str:
        """The host executors should connect to."""
        if self._bind_host in (None, "", "0.0.0.0"):
            return _local_ip()
        return self._bind_host

    @property
    def port(self) -> int:
        """The port listened on."""
        return self._srv.port

    @property
    def address(self) -> str:
        """"host:port" for the executors."""
        host = self.host
        return "%s:%d" % ("[%s]" % host if ":" in host else host, self.port)

    @property
    def environ(self) -> Dict[str, str]:
        """The variables telling an executor's spark backend where to register."""
        return {"TFOS_SERVER_HOST": self.host, "TFOS_SERVER_PORT": str(self.port)}

    def start(self) -> "Server":
        """Serve in a background thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="muster-reserve",
                                            daemon=True)
            self._thread.start()
        return self

    def _serve(self):
        try:
            self._srv.run()
        except BaseException as e:  # handed to wait()
            self._error = e

    def wait(self) -> Dict[str, List[str]]:
        """Serve until every executor has the cluster; return its ClusterSpec
        ({"ps": [...], "worker": [...]}).  muster.TryAgainError on timeout
        (naming the missing executors), muster.ConflictError for two
        executors claiming one id, muster.UnavailableError when stopped."""
        self.start()
        try:
            while self._thread.is_alive():
                self._thread.join(0.1)
        except KeyboardInterrupt:
            self.stop()
            raise
        if self._error is not None:
            raise self._error
        return json.loads(self._srv.cluster_spec())

    def stop(self) -> None:
        """Make a serving thread return soon (any thread may call it)."""
        self._srv.stop()

    def close(self) -> None:
        """Stop serving and wait for the thread."""
        if self._thread is not None:
            self.stop()
            self._thread.join()

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<muster.reserve.Server %s>" % self.address
