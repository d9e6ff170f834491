"""``sys.stdout`` and ``sys.stderr`` stay the same objects while the worker runs.

Why: in CPython before 3.14, ``print()`` holds a *borrowed* reference to
``sys.stdout`` while it writes (python/cpython#130163). If another thread
replaces ``sys.stdout`` meanwhile and that drops the last reference to the old
stream, the printing thread writes to freed memory: the worker dies of
SIGSEGV. hermes prints from its API, compression and tool threads, and it
replaced both streams at each agent build and run (``_install_safe_stdio``
wraps them in its ``_SafeWriter``). The worker then had to take those wrappers
off again at each turn, so they would not pile up, and that freed them under
other threads' prints.

Contract: ``install(*modules)`` replaces ``_install_safe_stdio`` in each of
hermes' modules that holds it (they look it up by name at call time) with one
that leaves the streams alone, once; a module without it is skipped, and it
returns how many it replaced. The worker's streams already never raise
(``transport.stdio``), which is all hermes' wrapper adds. hermes' per-thread
router (``agent.thread_scoped_output``), installed at the first background
review, wraps them once and stays, as hermes means it to.
"""

from __future__ import annotations

from typing import Any


def _leave_streams_alone() -> None:
    """hermes' ``_install_safe_stdio``, in a worker whose streams never raise."""


def install(*modules: Any) -> int:
    replaced = 0
    for module in modules:
        current = getattr(module, "_install_safe_stdio", None)
        if current is None or current is _leave_streams_alone:
            continue
        module._install_safe_stdio = _leave_streams_alone
        replaced += 1
    return replaced
