"""muster.reserve.Server embedded in this Python process, with four
executor processes of the spark backend (`muster resolve`) registering."""
import json
import os
import subprocess

import pytest

import muster
import muster.reserve
from conftest import MUSTER_BIN

if not hasattr(muster._muster, "ReserveServer"):
    pytest.skip("the reservation server is not built", allow_module_level=True)


def spark_conf(conf, size, extra=""):
    return conf('chain = ( { plugin = "spark"; timeout_ms = 120000; config = { '
                'cluster_size = %d; num_ps = 1; executor_id_variable = "EXECUTOR_ID"; %s }; '
                '} );' % (size, extra), "spark")


def executors(server, path, ids):
    procs = []
    for i in ids:
        env = dict(os.environ, EXECUTOR_ID=str(i), **server.environ)
        procs.append(subprocess.Popen([MUSTER_BIN, "-c", path, "resolve"], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    return procs


def finish(procs):
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        outs.append(json.loads(out))
    return outs


def test_four_executors(conf):
    with muster.reserve.Server(4, host="127.0.0.1", timeout=120) as server:
        assert server.address == "127.0.0.1:%d" % server.port
        procs = executors(server, spark_conf(conf, 4), range(4))
        spec = server.wait()
    outs = finish(procs)
    assert list(spec) == ["ps", "worker"] and len(spec["ps"]) == 1 and len(spec["worker"]) == 3
    assert [o["cluster"] for o in outs] == [spec] * 4
    assert [(o["task"]["type"], o["task"]["index"]) for o in outs] == \
        [("ps", 0), ("worker", 0), ("worker", 1), ("worker", 2)]


def test_auth_key(conf, tmp_path):
    key = b"a shared key of more than sixteen bytes"
    (tmp_path / "key").write_bytes(key)
    (tmp_path / "key").chmod(0o600)
    with muster.reserve.Server(2, host="127.0.0.1", timeout=120, auth_key=key) as server:
        procs = executors(server, spark_conf(conf, 2, 'auth_key_file = "%s";'
                                             % (tmp_path / "key")), range(2))
        spec = server.wait()
    assert [o["cluster"] for o in finish(procs)] == [spec] * 2


def test_timeout_names_the_missing(conf):
    # Executors 0 and 2 register (in well under the 5 s), 1 never does.
    with muster.reserve.Server(3, host="127.0.0.1", timeout=5) as server:
        procs = executors(server, spark_conf(conf, 3), [0, 2])
        with pytest.raises(muster.TryAgainError) as e:
            server.wait()
    for p in procs:
        p.kill()
        p.wait()
    assert e.value.exit_status == 3
    assert e.value.reason.endswith(": 1 of 3 executors never registered (ids 1); 2 registered "
                                   "but never fetched the complete list (ids 0, 2)"), str(e.value)


def test_stop(conf):
    server = muster.reserve.Server(2, host="127.0.0.1").start()
    server.stop()
    with pytest.raises(muster.UnavailableError):
        server.wait()
    server.close()


def test_bad_arguments():
    with pytest.raises(muster.Error):
        muster.reserve.Server(0)
    with pytest.raises(ValueError):
        muster.reserve.Server(1, port=70000)
