"""Exceptions: one class per failure, each with the backend, the
configuration's file:line and the reason, and the exit status the `muster`
program gives for the same input."""
import os

import pytest

import muster
from conftest import cli, fixture


def check(exc_info, cls, config, backend, file, line, reason, env=None):
    e = exc_info.value
    assert type(e) is cls
    assert isinstance(e, muster.Error)
    assert (e.backend, e.file, e.line) == (backend, file, line)
    assert reason in e.reason
    assert "%s:%d" % (file, line) in str(e)
    rc, _, err = cli(config, "resolve", env=env)
    assert rc == e.exit_status, err
    assert e.reason in err


def test_not_found():
    c = fixture("tf-only.conf")
    with pytest.raises(muster.NotFoundError) as e:
        muster.resolve(c)
    check(e, muster.NotFoundError, c, "tf_config", c, 3, "TF_CONFIG is not set")
    assert e.value.instance == "tf_config" and e.value.exit_status == 1


def test_unavailable(conf, apiserver):
    server = apiserver("--mode", "forbidden")
    c = conf('# the entry is on line 2\nchain = ( { plugin = "kubernetes"; name = "k8s"; '
             'config = { %s }; } );' % server.entry())
    with pytest.raises(muster.UnavailableError) as e:
        muster.resolve(c)
    check(e, muster.UnavailableError, c, "kubernetes", c, 2, "HTTP 403 Forbidden")
    assert e.value.instance == "k8s" and e.value.exit_status == 2


def test_try_again(conf, apiserver):
    server = apiserver("--scenario", "pending", "--pending-polls", "1000")
    c = conf('chain = ( { plugin = "kubernetes"; name = "k8s"; config = { %s }; } );'
             % server.entry())
    with pytest.raises(muster.TryAgainError) as e:
        muster.resolve(c)
    check(e, muster.TryAgainError, c, "kubernetes", c, 1, "waiting for tensorflow-worker-3")
    assert e.value.exit_status == 3


def test_config_error():
    c = fixture("syntax-error.conf")
    with pytest.raises(muster.ConfigError) as e:
        muster.resolve(c)
    check(e, muster.ConfigError, c, None, c, 4, "syntax error")
    c = fixture("bad-type.conf")
    with pytest.raises(muster.ConfigError) as e:
        muster.Context(c)
    check(e, muster.ConfigError, c, None, c, 6, "'timeout_ms' must be an integer")
    assert e.value.exit_status == 4


def test_plugin_error(conf, tmp_path, monkeypatch):
    plugins = tmp_path / "plugins"
    plugins.mkdir(mode=0o755)
    (plugins / "broken.so").write_bytes(b"not an ELF file\n" * 64)
    (plugins / "broken.so").chmod(0o644)
    env = dict(os.environ, MUSTER_PLUGIN_PATH=str(plugins))
    monkeypatch.setenv("MUSTER_PLUGIN_PATH", str(plugins))
    c = conf('strict = true;\nchain = ( { plugin = "broken"; } );')
    with pytest.raises(muster.PluginError) as e:
        muster.resolve(c)
    check(e, muster.PluginError, c, "broken", c, 2, "cannot load", env=env)
    assert e.value.exit_status == 4


def test_conflict():
    c = fixture("conflict.conf")
    with pytest.raises(muster.ConflictError) as e:
        muster.resolve(c)
    # The entry that brought the second answer for the task.
    check(e, muster.ConflictError, c, "static", c, 9, "task worker:1 is given by both")
    assert e.value.instance == "second" and e.value.exit_status == 5


def test_no_such_task():
    c = muster.resolve(fixture("static.conf"))
    with pytest.raises(muster.NoSuchTaskError) as e:
        c.tf_config("nosuchjob:0")
    assert e.value.exit_status == 5 == cli(fixture("static.conf"), "tf-config", "--task",
                                           "nosuchjob:0")[0]


def test_errors_pickle_and_print():
    import pickle
    with pytest.raises(muster.NotFoundError) as e:
        muster.resolve(fixture("tf-only.conf"))
    assert "tf-only.conf:3" in str(e.value)
    assert isinstance(pickle.loads(pickle.dumps(e.value)), muster.NotFoundError)
