"""One SSL context per CA bundle for hermes' HTTP clients, instead of one per client transport.

Every ``httpx.HTTPTransport`` builds its own SSL context, loading the whole CA
bundle again: about 33 ms each with OpenSSL 3.0 here. hermes builds three
transports per HTTP client and several clients per agent (the model's, the
auxiliary ones, probes of the endpoint); when a CA bundle is configured
(``SSL_CERT_FILE``, ``REQUESTS_CA_BUNDLE``, ...) it loads the bundle into a
context of its own for each client instead (``agent.ssl_verify``). Either way
a worker's first agent paid about 0.3 s and every later new session about
0.1 s for identical contexts. httpx's own advice is to build a context once
and share it; this does that for these default contexts, keyed on everything
they are built from.

Contract:
- ``share_default_contexts(module)`` replaces ``module.create_ssl_context``
  (``httpx._transports.default`` looks that name up at each transport
  build). Only ``verify=True`` without a client certificate is shared, keyed
  on ``trust_env`` and the variables httpx and ``ssl`` build it from
  (``SSL_CERT_FILE``, ``SSL_CERT_DIR``, ``SSLKEYLOGFILE``) plus the identity of
  the bundle file it loads (the variable's or certifi's). Anything else
  (``verify=False``, a given context or path, a ``cert``) goes to httpx's
  own function and gets a context of its own, as before.
- ``share_bundle_contexts(*modules)`` gives the modules (hermes'
  ``agent.ssl_verify``, which builds a context per client from a configured
  bundle, and ``agent.ssl_guard``, whose check loads each configured bundle)
  one view of ``ssl`` whose ``create_default_context(cafile=...)`` for server
  authentication is shared, keyed on the path, the file's identity and
  ``SSLKEYLOGFILE``; any other call goes to ``ssl`` unchanged. A bundle that
  fails to load raises as before and is never kept, so the check still
  refuses it; one that loaded is the same context the clients then use.
- Both return True, or False and change nothing when the module lacks what
  this was written against or is already changed. Both keep their contexts in
  ``contexts`` (the process's ``CONTEXTS`` by default).
- ``load_ahead(transports)`` builds, into ``CONTEXTS``, what a worker's first
  agent would: httpx's default context (sharing it in ``transports``) and one
  per CA bundle the environment names for hermes' check (the variables of
  hermes' ``ssl_guard`` when it is already imported, else ``CA_BUNDLE_VARS``)
  plus certifi's. It returns how many contexts it holds; a bundle that fails
  to load is skipped (the worker's own check reports it). A worker template
  calls it before forking: the contexts are keyed on the environment and the
  files, so a forked worker uses them only where its inputs are the same.
- A file's identity is its device, inode, size and mtime: a changed bundle or
  variable gets a new context, so a removed CA is never trusted from a stale
  one. A bundle that cannot be stat'ed is not shared.
- A shared context refuses ``load_cert_chain``, ``load_verify_locations`` and
  ``load_default_certs`` (``TypeError``): no client certificate or extra CA
  given for one client can reach another's connections. httpcore only sets
  its ALPN list at each connection, the same list for every transport unless
  one asks for HTTP/2 (hermes' do not), and even then each connection speaks
  what it negotiated.
- At most ``MAX_CONTEXTS`` keys are kept; older ones are dropped (clients that
  hold them keep them).
"""

from __future__ import annotations

import contextlib
import os
import ssl
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .tlscheck import file_identity

MAX_CONTEXTS = 8
_VARS = ("SSL_CERT_FILE", "SSL_CERT_DIR", "SSLKEYLOGFILE")
# hermes' ssl_guard._CA_BUNDLE_ENV_VARS (0.19.0), for when it is not imported: a stale
# list costs speed only.
CA_BUNDLE_VARS = ("HERMES_CA_BUNDLE", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
_Key = tuple[object, ...]


class _Shared:
    def __init__(self) -> None:
        self._contexts: dict[_Key, ssl.SSLContext] = {}
        self._lock = threading.Lock()

    def get(self, key: _Key, build: Callable[[], ssl.SSLContext]) -> ssl.SSLContext:
        with self._lock:  # one build per key, even when sessions start together
            ctx = self._contexts.get(key)
            if ctx is None:
                ctx = build()
                for name in ("load_cert_chain", "load_verify_locations", "load_default_certs"):
                    setattr(ctx, name, _refuse(name))
                if len(self._contexts) >= MAX_CONTEXTS:
                    self._contexts.pop(next(iter(self._contexts)))
                self._contexts[key] = ctx
            return ctx

    def __len__(self) -> int:
        with self._lock:
            return len(self._contexts)


class Contexts:
    """A process's shared contexts: httpx's default ones and hermes' bundle ones."""

    def __init__(self) -> None:
        self.default = _Shared()
        self.bundles = _Shared()

    def __len__(self) -> int:
        return len(self.default) + len(self.bundles)


CONTEXTS = Contexts()


def _refuse(name: str) -> Callable[..., None]:
    def refuse(*args: object, **kwargs: object) -> None:
        raise TypeError(f"{name}() on an SSL context shared by hermes' HTTP clients")

    return refuse


def share_default_contexts(module: Any, contexts: Contexts = CONTEXTS) -> bool:
    create = getattr(module, "create_ssl_context", None)
    if not callable(create) or getattr(create, "_shares_contexts", False):
        return False
    shared = contexts.default

    def create_ssl_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> Any:
        key = _httpx_key(bool(trust_env)) if verify is True and not cert else None
        if key is None:
            return create(verify=verify, cert=cert, trust_env=trust_env)
        return shared.get(key, lambda: create(verify=True, cert=None, trust_env=trust_env))

    create_ssl_context._shares_contexts = True  # type: ignore[attr-defined]
    module.create_ssl_context = create_ssl_context
    return True


def _httpx_key(trust_env: bool) -> _Key | None:
    values = tuple(os.environ.get(name) for name in _VARS)
    cert_file, cert_dir, _ = values
    try:
        if trust_env and cert_file:
            bundle: object = file_identity(cert_file)
        elif trust_env and cert_dir:
            bundle = None  # a directory is read at each handshake, not at build
        else:
            import certifi

            bundle = file_identity(certifi.where())
    except (ImportError, OSError, ValueError):
        return None
    return (trust_env, *values, bundle)


class _SslView:
    """``ssl`` as ``share_bundle_contexts``' module sees it."""

    def __init__(self, shared: _Shared) -> None:
        self._shared = shared

    def __getattr__(self, name: str) -> Any:
        return getattr(ssl, name)

    def create_default_context(
        self,
        purpose: ssl.Purpose = ssl.Purpose.SERVER_AUTH,
        *,
        cafile: Any = None,
        capath: Any = None,
        cadata: Any = None,
    ) -> ssl.SSLContext:
        key: _Key | None = None
        plain = purpose is ssl.Purpose.SERVER_AUTH and capath is None and cadata is None
        if plain and isinstance(cafile, str) and cafile:
            try:
                key = (cafile, file_identity(cafile), os.environ.get("SSLKEYLOGFILE"))
            except (OSError, ValueError):
                key = None
        if key is None:
            return ssl.create_default_context(purpose, cafile=cafile, capath=capath, cadata=cadata)
        return self._shared.get(key, lambda: ssl.create_default_context(cafile=cafile))


def share_bundle_contexts(*modules: Any, contexts: Contexts = CONTEXTS) -> bool:
    if not modules or any(getattr(m, "ssl", None) is not ssl for m in modules):
        return False
    view = _SslView(contexts.bundles)  # one for all: the check's contexts serve the clients
    for module in modules:
        module.ssl = view
    return True


def load_ahead(transports: Any, contexts: Contexts = CONTEXTS) -> int:
    share_default_contexts(transports, contexts)
    with contextlib.suppress(Exception):
        transports.create_ssl_context()
    view = _SslView(contexts.bundles)
    # Only if imported already: a template never imports hermes' modules unaudited.
    guard = sys.modules.get("agent.ssl_guard")
    names = getattr(guard, "_CA_BUNDLE_ENV_VARS", CA_BUNDLE_VARS)
    paths = [os.environ.get(name, "").strip() for name in names]
    with contextlib.suppress(ImportError):
        import certifi

        paths.append(str(certifi.where()))
    for path in dict.fromkeys(str(Path(p).expanduser()) for p in paths if p):
        with contextlib.suppress(Exception):
            view.create_default_context(cafile=path)  # as hermes' check and clients ask
    return len(contexts)
