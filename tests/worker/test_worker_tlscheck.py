"""hermes' CA-bundle check is skipped only when an identical check has passed: same variables,
same files. Failures are never remembered. The last tests run hermes' real check."""

from __future__ import annotations

import ssl
import types
from pathlib import Path
from typing import Any

import certifi
import pytest

from hermes_stdio.worker.tlscheck import check_ahead, remember_bundle_check

VARS = ("FAKE_CA_BUNDLE", "FAKE_CERT_FILE")


class Broken(Exception):
    pass


def fake_guard(fail: list[bool]) -> tuple[types.ModuleType, list[int]]:
    guard = types.ModuleType("fake_ssl_guard")
    calls: list[int] = []

    def verify_ca_bundle() -> None:
        calls.append(1)
        if fail[0]:
            raise Broken("bad bundle")

    verify_ca_bundle.__module__ = guard.__name__
    guard.verify_ca_bundle = verify_ca_bundle  # type: ignore[attr-defined]
    guard._CA_BUNDLE_ENV_VARS = VARS  # type: ignore[attr-defined]
    return guard, calls


def fake_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, names: tuple[str, ...], var: str
) -> Path:
    """A bundle file named by ``var`` alone of ``names``."""
    path = tmp_path / "ca.pem"
    path.write_text("certs\n")
    for name in names:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(var, str(path))
    return path


@pytest.fixture
def bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fake_bundle(tmp_path, monkeypatch, VARS, "FAKE_CA_BUNDLE")


def test_a_passed_check_with_unchanged_variables_and_files_is_not_repeated(bundle: Path) -> None:
    guard, calls = fake_guard([False])
    assert remember_bundle_check(guard)
    for _ in range(3):
        guard.verify_ca_bundle()
    assert len(calls) == 1


def test_a_changed_bundle_file_is_checked_again(bundle: Path) -> None:
    guard, calls = fake_guard([False])
    remember_bundle_check(guard)
    guard.verify_ca_bundle()
    bundle.write_text("other certs, longer\n")
    guard.verify_ca_bundle()
    assert len(calls) == 2


def test_a_changed_or_new_variable_is_checked_again(
    bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard, calls = fake_guard([False])
    remember_bundle_check(guard)
    guard.verify_ca_bundle()
    monkeypatch.setenv("FAKE_CERT_FILE", str(bundle))
    guard.verify_ca_bundle()
    monkeypatch.setenv("HERMES_SKIP_SSL_GUARD", "1")
    guard.verify_ca_bundle()
    assert len(calls) == 3


def test_a_failing_check_raises_every_time_and_is_never_remembered(bundle: Path) -> None:
    fail = [True]
    guard, calls = fake_guard(fail)
    remember_bundle_check(guard)
    for _ in range(2):
        with pytest.raises(Broken):
            guard.verify_ca_bundle()
    fail[0] = False
    guard.verify_ca_bundle()
    guard.verify_ca_bundle()
    assert len(calls) == 3


def test_a_bundle_that_cannot_be_stated_is_always_checked(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard, calls = fake_guard([False])
    remember_bundle_check(guard)
    monkeypatch.setenv("FAKE_CERT_FILE", str(bundle.with_name("missing.pem")))
    guard.verify_ca_bundle()
    guard.verify_ca_bundle()
    assert len(calls) == 2


def test_a_module_unlike_hermes_guard_or_already_wrapped_is_left_alone() -> None:
    guard, _ = fake_guard([False])
    assert remember_bundle_check(guard)
    wrapped = guard.verify_ca_bundle
    assert not remember_bundle_check(guard)
    assert guard.verify_ca_bundle is wrapped
    other, _ = fake_guard([False])
    del other._CA_BUNDLE_ENV_VARS
    original = other.verify_ca_bundle
    assert not remember_bundle_check(other)
    assert other.verify_ca_bundle is original


def test_a_check_run_ahead_is_not_repeated_while_its_inputs_are_unchanged(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard, calls = fake_guard([False])
    assert check_ahead(guard)
    guard.verify_ca_bundle()
    assert len(calls) == 1
    monkeypatch.setenv("FAKE_CERT_FILE", str(bundle))  # a worker whose variables differ
    guard.verify_ca_bundle()
    assert len(calls) == 2
    assert not check_ahead(guard)  # wrapped already: left alone, not checked again
    assert len(calls) == 2


def test_a_check_that_fails_ahead_is_reported_and_raises_again_when_hermes_asks(
    bundle: Path,
) -> None:
    guard, calls = fake_guard([True])
    assert not check_ahead(guard)
    with pytest.raises(Broken):
        guard.verify_ca_bundle()
    assert len(calls) == 2


@pytest.fixture
def real_guard(monkeypatch: pytest.MonkeyPatch) -> Any:
    from agent import ssl_guard

    # Restored after the test: the wrapper below must not outlive it.
    monkeypatch.setattr(ssl_guard, "verify_ca_bundle", ssl_guard.verify_ca_bundle)
    for name in (*ssl_guard._CA_BUNDLE_ENV_VARS, "HERMES_SKIP_SSL_GUARD"):
        monkeypatch.delenv(name, raising=False)
    return ssl_guard


def counting_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    loads: list[str] = []
    real = ssl.create_default_context

    def create(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        loads.append(str(kwargs.get("cafile")))
        return real(*args, **kwargs)

    monkeypatch.setattr(ssl, "create_default_context", create)
    return loads


def test_hermes_real_check_loads_each_bundle_once_while_unchanged(
    real_guard: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    loads = counting_loads(monkeypatch)
    assert remember_bundle_check(real_guard)
    for _ in range(3):
        real_guard.verify_ca_bundle_with_fallback()  # what hermes' agent build calls
    assert loads == [certifi.where(), certifi.where()]  # SSL_CERT_FILE, then certifi's own


def test_hermes_real_check_still_refuses_a_broken_bundle_every_time(
    real_guard: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken.pem"
    broken.write_text("not a certificate\n")
    monkeypatch.setenv("SSL_CERT_FILE", str(broken))
    from agent.errors import SSLConfigurationError

    remember_bundle_check(real_guard)
    for _ in range(2):
        with pytest.raises(SSLConfigurationError):
            real_guard.verify_ca_bundle_with_fallback()
