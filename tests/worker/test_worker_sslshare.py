"""httpx transports that want the default SSL context, and hermes' modules that load a CA
bundle, share one context per set of trust inputs (each test with contexts of its own); any
other request, or a changed bundle or variable, gets a context of its own, and nothing can add
a certificate to a shared one. The later tests use real httpx transports, hermes' real
modules and a real TLS server on 127.0.0.1."""

from __future__ import annotations

import http.server
import ssl
import sys
import threading
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import certifi
import httpx
import pytest
from test_worker_tlscheck import counting_loads, fake_bundle

from hermes_stdio.testing.tls import self_signed, server_context
from hermes_stdio.worker.sslshare import (
    MAX_CONTEXTS,
    Contexts,
    load_ahead,
    share_bundle_contexts,
    share_default_contexts,
)

VARS = ("SSL_CERT_FILE", "SSL_CERT_DIR", "SSLKEYLOGFILE")


def fake_module() -> tuple[types.ModuleType, list[tuple[Any, Any, bool]]]:
    module = types.ModuleType("fake_transports")
    calls: list[tuple[Any, Any, bool]] = []

    def create_ssl_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> Any:
        calls.append((verify, cert, trust_env))
        return types.SimpleNamespace()

    module.create_ssl_context = create_ssl_context  # type: ignore[attr-defined]
    return module, calls


@pytest.fixture
def bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fake_bundle(tmp_path, monkeypatch, VARS, "SSL_CERT_FILE")


def test_default_contexts_with_unchanged_inputs_are_built_once_and_shared(bundle: Path) -> None:
    module, calls = fake_module()
    assert share_default_contexts(module, Contexts())
    contexts = {id(module.create_ssl_context()) for _ in range(3)}
    contexts.add(id(module.create_ssl_context(verify=True, cert=None, trust_env=True)))
    assert len(contexts) == 1
    assert len(calls) == 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"verify": False},
        {"verify": "/some/ca.pem"},
        {"verify": ssl.create_default_context()},
        {"cert": "/some/client.pem"},
    ],
    ids=["unverified", "path", "given-context", "client-cert"],
)
def test_anything_but_the_default_gets_a_new_context_each_time(
    bundle: Path, kwargs: dict[str, Any]
) -> None:
    module, calls = fake_module()
    share_default_contexts(module, Contexts())
    first, second = module.create_ssl_context(**kwargs), module.create_ssl_context(**kwargs)
    assert first is not second
    assert len(calls) == 2


def test_a_changed_bundle_file_gets_a_new_context(bundle: Path) -> None:
    module, calls = fake_module()
    share_default_contexts(module, Contexts())
    first = module.create_ssl_context()
    bundle.write_text("other certs, longer\n")
    assert module.create_ssl_context() is not first
    assert len(calls) == 2


@pytest.mark.parametrize("name", VARS)
def test_a_changed_or_new_variable_gets_a_new_context(
    bundle: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    module, calls = fake_module()
    share_default_contexts(module, Contexts())
    first = module.create_ssl_context()
    other = tmp_path / "other.pem"
    other.write_text("certs\n")
    monkeypatch.setenv(name, str(other))
    assert module.create_ssl_context() is not first
    assert len(calls) == 2


def test_transports_that_ignore_the_environment_get_their_own_context(bundle: Path) -> None:
    module, calls = fake_module()
    share_default_contexts(module, Contexts())
    assert module.create_ssl_context(trust_env=False) is not module.create_ssl_context()
    assert module.create_ssl_context(trust_env=False) is module.create_ssl_context(trust_env=False)
    assert len(calls) == 2


def test_a_bundle_that_cannot_be_stated_is_never_shared(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, calls = fake_module()
    share_default_contexts(module, Contexts())
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle.with_name("missing.pem")))
    assert module.create_ssl_context() is not module.create_ssl_context()
    assert len(calls) == 2


def test_only_the_latest_keys_are_kept(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module, calls = fake_module()
    share_default_contexts(module, Contexts())
    first = module.create_ssl_context()
    for i in range(MAX_CONTEXTS):
        monkeypatch.setenv("SSLKEYLOGFILE", f"/tmp/keys-{i}")
        module.create_ssl_context()
    monkeypatch.delenv("SSLKEYLOGFILE")
    assert module.create_ssl_context() is not first
    assert len(calls) == MAX_CONTEXTS + 2


def test_sessions_starting_together_build_one_context(bundle: Path) -> None:
    module, calls = fake_module()
    share_default_contexts(module, Contexts())
    got: list[object] = []
    threads = [
        threading.Thread(target=lambda: got.append(module.create_ssl_context())) for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(got) == 8 and len({id(c) for c in got}) == 1
    assert len(calls) == 1


def test_a_module_without_the_function_or_already_shared_is_left_alone() -> None:
    module, _ = fake_module()
    assert share_default_contexts(module, Contexts())
    shared = module.create_ssl_context
    assert not share_default_contexts(module, Contexts())
    assert module.create_ssl_context is shared
    assert not share_default_contexts(types.ModuleType("empty"), Contexts())


# -- real httpx ------------------------------------------------------------------------------


@pytest.fixture
def real_transports(monkeypatch: pytest.MonkeyPatch) -> Any:
    from httpx._transports import default

    # Restored after the test: the sharing wrapper must not outlive it.
    monkeypatch.setattr(default, "create_ssl_context", default.create_ssl_context)
    for name in VARS:
        monkeypatch.delenv(name, raising=False)
    assert share_default_contexts(default, Contexts())
    return default


def pool_context(transport: httpx.HTTPTransport) -> ssl.SSLContext:
    return transport._pool._ssl_context  # type: ignore[attr-defined,no-any-return]


def test_real_transports_load_the_bundle_once_and_share_it(
    real_transports: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    loads = counting_loads(monkeypatch)
    a, b = httpx.HTTPTransport(), httpx.HTTPTransport()
    client = httpx.Client()  # its default transport, as hermes' clients build
    unverified = httpx.HTTPTransport(verify=False)
    assert pool_context(a) is pool_context(b)
    assert pool_context(a) is pool_context(client._transport)  # type: ignore[arg-type]
    assert pool_context(unverified) is not pool_context(a)
    assert pool_context(unverified).verify_mode == ssl.CERT_NONE
    assert pool_context(a).verify_mode == ssl.CERT_REQUIRED
    assert loads == [certifi.where()]
    client.close()


class _Ok(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    cert, key = self_signed(tmp_path)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    server.socket = server_context(cert, key).wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://127.0.0.1:{server.server_address[1]}/", cert
    server.shutdown()
    server.server_close()
    thread.join(timeout=10)


def test_shared_contexts_verify_servers_and_a_changed_trust_store_is_never_served_stale(
    real_transports: Any, tls_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, cert = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    for _ in range(2):  # the second client's context is the shared one
        with httpx.Client(timeout=10) as client:
            assert client.get(url).text == "ok"
    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())  # a store without the server's CA
    with httpx.Client(timeout=10) as client, pytest.raises(httpx.ConnectError):
        client.get(url)


def test_a_shared_context_refuses_a_client_certificate_or_more_cas(bundle: Path) -> None:
    module, _ = fake_module()
    share_default_contexts(module, Contexts())
    shared = module.create_ssl_context()
    for name in ("load_cert_chain", "load_verify_locations", "load_default_certs"):
        with pytest.raises(TypeError):
            getattr(shared, name)("/some/client.pem")


# -- hermes' own bundle contexts -------------------------------------------------------------


def viewing_module() -> types.ModuleType:
    module = types.ModuleType("fake_ssl_verify")
    module.ssl = ssl  # type: ignore[attr-defined]
    return module


def test_a_bundle_loaded_by_any_viewing_module_is_loaded_once_and_shared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loads = counting_loads(monkeypatch)
    check, clients = viewing_module(), viewing_module()
    assert share_bundle_contexts(check, clients, contexts=Contexts())
    first = check.ssl.create_default_context(cafile=certifi.where())
    assert clients.ssl.create_default_context(cafile=certifi.where()) is first
    assert first.get_ca_certs()  # a loaded store, as hermes' check verifies
    assert loads == [certifi.where()]
    assert clients.ssl.CERT_REQUIRED is ssl.CERT_REQUIRED  # the rest of ssl, unchanged


def test_other_default_context_requests_are_never_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    loads = counting_loads(monkeypatch)
    module = viewing_module()
    share_bundle_contexts(module, contexts=Contexts())
    view = module.ssl
    requests = [
        lambda: view.create_default_context(),
        lambda: view.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=certifi.where()),
        lambda: view.create_default_context(
            cafile=certifi.where(), capath=str(Path(certifi.where()).parent)
        ),
        lambda: view.create_default_context(cadata=Path(certifi.where()).read_text()),
    ]
    for request in requests:
        assert request() is not request()
    assert len(loads) == 2 * len(requests)


def test_a_changed_bundle_file_is_loaded_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "ca.pem"
    path.write_bytes(Path(certifi.where()).read_bytes())
    module = viewing_module()
    share_bundle_contexts(module, contexts=Contexts())
    first = module.ssl.create_default_context(cafile=str(path))
    path.write_bytes(Path(certifi.where()).read_bytes() + b"\n")
    assert module.ssl.create_default_context(cafile=str(path)) is not first


def test_a_bundle_that_fails_to_load_fails_every_time(tmp_path: Path) -> None:
    broken = tmp_path / "broken.pem"
    broken.write_text("not a certificate\n")
    module = viewing_module()
    share_bundle_contexts(module, contexts=Contexts())
    for _ in range(2):
        with pytest.raises(ssl.SSLError):
            module.ssl.create_default_context(cafile=str(broken))


def test_modules_without_ssl_or_already_viewing_are_left_alone() -> None:
    module = viewing_module()
    assert share_bundle_contexts(module, contexts=Contexts())
    view = module.ssl
    assert not share_bundle_contexts(module, contexts=Contexts())
    assert module.ssl is view
    plain, other = viewing_module(), types.ModuleType("no_ssl")
    assert not share_bundle_contexts(plain, other, contexts=Contexts())
    assert plain.ssl is ssl
    assert not share_bundle_contexts(contexts=Contexts())


@pytest.fixture
def hermes_ssl(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    from agent import ssl_guard, ssl_verify

    # Restored after the test: the view below must not outlive it.
    monkeypatch.setattr(ssl_guard, "ssl", ssl)
    monkeypatch.setattr(ssl_verify, "ssl", ssl)
    for name in (*ssl_guard._CA_BUNDLE_ENV_VARS, "HERMES_SKIP_SSL_GUARD"):
        monkeypatch.delenv(name, raising=False)
    assert share_bundle_contexts(ssl_guard, ssl_verify, contexts=Contexts())
    return ssl_guard, ssl_verify


def test_hermes_check_and_clients_load_a_configured_bundle_once(
    hermes_ssl: tuple[Any, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard, verify = hermes_ssl
    bundle = tmp_path / "corporate.pem"
    bundle.write_bytes(Path(certifi.where()).read_bytes())
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
    loads = counting_loads(monkeypatch)
    guard.verify_ca_bundle_with_fallback()  # what hermes' agent build runs first
    contexts = [verify.resolve_httpx_verify() for _ in range(3)]  # one per client
    assert all(c is contexts[0] for c in contexts)
    assert isinstance(contexts[0], ssl.SSLContext)
    assert loads == [str(bundle), certifi.where()]


def test_hermes_check_still_refuses_a_broken_bundle_every_time(
    hermes_ssl: tuple[Any, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard, _ = hermes_ssl
    broken = tmp_path / "broken.pem"
    broken.write_text("not a certificate\n")
    monkeypatch.setenv("SSL_CERT_FILE", str(broken))
    from agent.errors import SSLConfigurationError

    for _ in range(2):
        with pytest.raises(SSLConfigurationError):
            guard.verify_ca_bundle_with_fallback()


@pytest.mark.filterwarnings("ignore:`cert=...` is deprecated:DeprecationWarning")
def test_a_hermes_client_context_cannot_be_given_a_client_certificate(
    hermes_ssl: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, verify = hermes_ssl
    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    with pytest.raises(TypeError):
        httpx.Client(verify=verify.resolve_httpx_verify(), cert=certifi.where())


# -- loaded ahead (a worker template) --------------------------------------------------------


def test_contexts_loaded_ahead_serve_the_first_clients_and_checks_without_a_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = tmp_path / "corporate.pem"
    bundle.write_bytes(Path(certifi.where()).read_bytes())
    broken = tmp_path / "broken.pem"
    broken.write_text("not a certificate\n")
    for name in (*VARS, "HERMES_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
    monkeypatch.setenv("CURL_CA_BUNDLE", str(broken))
    transports, calls = fake_module()
    contexts = Contexts()
    assert load_ahead(transports, contexts) == 3  # httpx's, the bundle, certifi's; not broken
    assert len(calls) == 1
    loads = counting_loads(monkeypatch)
    check = viewing_module()
    share_bundle_contexts(check, contexts=contexts)
    for path in (str(bundle), certifi.where()):
        check.ssl.create_default_context(cafile=path)
    transports.create_ssl_context()
    assert loads == [] and len(calls) == 1
    with pytest.raises(ssl.SSLError):  # skipped ahead, refused when asked for
        check.ssl.create_default_context(cafile=str(broken))


def test_hermes_first_check_and_clients_after_loading_ahead_load_nothing(
    hermes_ssl: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from httpx._transports import default

    guard, verify = hermes_ssl
    monkeypatch.setattr(default, "create_ssl_context", default.create_ssl_context)
    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    contexts = Contexts()
    load_ahead(default, contexts)
    for module in (guard, verify):  # the fixture's view, replaced by one of these contexts
        monkeypatch.setattr(module, "ssl", ssl)
    assert share_bundle_contexts(guard, verify, contexts=contexts)
    loads = counting_loads(monkeypatch)
    guard.verify_ca_bundle_with_fallback()
    httpx.Client(verify=verify.resolve_httpx_verify()).close()
    httpx.Client().close()
    assert loads == []


def test_loading_ahead_follows_the_variables_of_hermes_check_once_it_is_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = tmp_path / "newer-hermes.pem"
    bundle.write_bytes(Path(certifi.where()).read_bytes())
    monkeypatch.setenv("HERMES_NEWER_CA_BUNDLE", str(bundle))
    guard = types.SimpleNamespace(_CA_BUNDLE_ENV_VARS=("HERMES_NEWER_CA_BUNDLE",))
    monkeypatch.setitem(sys.modules, "agent.ssl_guard", guard)
    transports, _ = fake_module()
    contexts = Contexts()
    load_ahead(transports, contexts)
    loads = counting_loads(monkeypatch)
    check = viewing_module()
    share_bundle_contexts(check, contexts=contexts)
    check.ssl.create_default_context(cafile=str(bundle))
    assert loads == []  # built ahead from the variable hermes names
