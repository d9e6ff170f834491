"""Remembers hermes' CA-bundle check while the bundles it checked are unchanged.

hermes-agent checks every CA bundle it may use (``agent.ssl_guard``'s
``verify_ca_bundle``) each time it builds an agent, by loading each bundle
into a new SSL context: about 33 ms per bundle here, and a machine that sets
``SSL_CERT_FILE``, ``REQUESTS_CA_BUNDLE`` and ``CURL_CA_BUNDLE`` has four,
all before a new session's first reply. The check's answer depends only on
a few environment variables and the files they name, so a worker keeps it
the way ``scancache`` keeps its verdicts: by each file's identity, size and
mtime.

Contract:
- ``remember_bundle_check(guard)`` replaces ``guard.verify_ca_bundle`` (which
  hermes' ``verify_ca_bundle_with_fallback`` looks up at each call) and
  returns True; it returns False and changes nothing when ``guard`` lacks
  what this was written against or is already wrapped.
- The replacement calls hermes' check unless a check with the same inputs
  has passed before in this process. The inputs are the values of
  ``guard._CA_BUNDLE_ENV_VARS`` and ``HERMES_SKIP_SSL_GUARD``, and the device,
  inode, size and mtime of every bundle those variables and certifi name.
- A failing check is never remembered: it raises every time, as hermes does.
  A bundle that cannot be stat'ed, or no certifi, means no shortcut.
- ``check_ahead(guard)`` wraps ``guard`` and runs the check once, for a
  worker template: its forked workers inherit what passed, and use it only
  where their own inputs are the same. True if it passed.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

_SKIP_VAR = "HERMES_SKIP_SSL_GUARD"

_Key = tuple[object, ...]


def file_identity(path: str) -> tuple[int, int, int, int]:
    st = os.stat(os.path.expanduser(path))
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _inputs(names: tuple[str, ...]) -> _Key | None:
    try:
        import certifi

        values = [os.environ.get(name) for name in (*names, _SKIP_VAR)]
        paths = [v for v in values[:-1] if v] + [str(certifi.where())]
        return (*values, *(file_identity(p) for p in paths))
    except (ImportError, OSError, ValueError):
        return None


def remember_bundle_check(guard: Any) -> bool:
    check = getattr(guard, "verify_ca_bundle", None)
    names = getattr(guard, "_CA_BUNDLE_ENV_VARS", None)
    if (
        not callable(check)
        or getattr(check, "__module__", None) != guard.__name__
        or not isinstance(names, tuple)
        or not all(isinstance(n, str) for n in names)
    ):
        return False  # not the check this was written against, or already wrapped
    guard.verify_ca_bundle = _remembering(check, names)
    return True


def _remembering(check: Callable[[], None], names: tuple[str, ...]) -> Callable[[], None]:
    passed: set[_Key] = set()
    lock = threading.Lock()

    def verify_ca_bundle() -> None:
        key = _inputs(names)
        with lock:
            if key is not None and key in passed:
                return
        check()
        if key is not None:
            with lock:
                passed.add(key)

    return verify_ca_bundle


def check_ahead(guard: Any) -> bool:
    if not remember_bundle_check(guard):
        return False
    try:
        guard.verify_ca_bundle()
    except Exception:  # a worker runs hermes' check itself, and reports it
        return False
    return True
