"""One httpx SSL context per set of trust inputs, shared by the transports that want the default.

Every ``httpx.HTTPTransport`` (and ``AsyncHTTPTransport``) builds its own SSL
context, loading the whole CA bundle again: about 33 ms each with OpenSSL 3.0
here. hermes builds three transports per HTTP client and several clients per
agent (the model's, the auxiliary ones, probes of the endpoint), so a worker's
first agent paid about 0.3 s and every later new session about 0.1 s for
identical contexts. httpx's own advice is to build a context once and share
it; this does that for the default one, keyed on everything it is built from.

Contract:
- ``share_default_contexts(module)`` replaces ``module.create_ssl_context``
  (``httpx._transports.default`` looks that name up at each transport build)
  and returns True; it returns False and changes nothing when the module
  lacks it or it is already replaced.
- Only ``verify=True`` without a client certificate is shared. Anything else
  (``verify=False``, a given context or path, a ``cert``) goes to httpx's own
  function and gets a new context, as before: a context that is handed a
  certificate chain is never shared.
- The key is ``trust_env`` and the environment variables the context is built
  from (``SSL_CERT_FILE``, ``SSL_CERT_DIR``, ``SSLKEYLOGFILE``), plus the
  device, inode, size and mtime of the bundle file it loads (the variable's or
  certifi's). A changed variable or bundle gets a new context, so a revoked
  CA is never trusted from a stale one. A bundle that cannot be stat'ed is
  not shared.
- A shared context is never changed by httpx; httpcore sets its ALPN list at
  each connection, which is the same list for every transport unless one asks
  for HTTP/2 (hermes' do not, and the ``h2`` package it needs is absent here),
  and even then each connection speaks whichever protocol it negotiated.
- At most ``MAX_CONTEXTS`` keys are kept; older ones are dropped (transports
  that hold them keep them).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from .tlscheck import file_identity

MAX_CONTEXTS = 8
_VARS = ("SSL_CERT_FILE", "SSL_CERT_DIR", "SSLKEYLOGFILE")


def share_default_contexts(module: Any) -> bool:
    create = getattr(module, "create_ssl_context", None)
    if not callable(create) or getattr(create, "_shares_contexts", False):
        return False
    module.create_ssl_context = _sharing(create)
    return True


def _key(trust_env: bool) -> tuple[object, ...] | None:
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


def _sharing(create: Callable[..., Any]) -> Callable[..., Any]:
    contexts: dict[tuple[object, ...], Any] = {}
    lock = threading.Lock()

    def create_ssl_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> Any:
        key = _key(bool(trust_env)) if verify is True and not cert else None
        if key is None:
            return create(verify=verify, cert=cert, trust_env=trust_env)
        with lock:  # one build per key, even when sessions start together
            ctx = contexts.get(key)
            if ctx is None:
                ctx = create(verify=verify, cert=cert, trust_env=trust_env)
                if len(contexts) >= MAX_CONTEXTS:
                    contexts.pop(next(iter(contexts)))
                contexts[key] = ctx
            return ctx

    create_ssl_context._shares_contexts = True  # type: ignore[attr-defined]
    return create_ssl_context
