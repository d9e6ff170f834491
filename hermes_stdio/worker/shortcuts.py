"""What a worker changes in hermes-agent once per process, for speed alone.

Contract (each leaves hermes' answers as they were; see each module):
- ``cache_tool_scan()`` serves hermes' scan of its tool modules from saved
  verdicts while the files are unchanged (``scancache``) and returns the
  verdicts to save once hermes has imported them; None when hermes' tool
  registry cannot be imported or is already served.
- ``pay_tls_setup_once()`` remembers hermes' CA-bundle check at each agent
  build while the bundles are unchanged (``tlscheck``), and has hermes' HTTP
  clients share one SSL context per bundle instead of loading the bundle
  again for each (``sslshare``). Call it once hermes-agent is imported.
"""

from __future__ import annotations

import contextlib

from .scancache import FileVerdicts, serve_tool_scan
from .sslshare import share_bundle_contexts, share_default_contexts
from .tlscheck import remember_bundle_check


def cache_tool_scan() -> FileVerdicts | None:
    try:
        from tools import registry
    except Exception:
        return None
    return serve_tool_scan(registry)


def pay_tls_setup_once() -> None:
    with contextlib.suppress(ImportError):
        from agent import ssl_guard

        remember_bundle_check(ssl_guard)
        from agent import ssl_verify

        share_bundle_contexts(ssl_guard, ssl_verify)
    with contextlib.suppress(ImportError):
        from httpx._transports import default as transports

        share_default_contexts(transports)
