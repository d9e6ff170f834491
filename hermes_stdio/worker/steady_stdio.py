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

hermes' ``execute_code`` tool also sets both streams to a ``/dev/null`` file
for the whole process around each tool call a sandboxed script makes, then
puts back what it found: meanwhile other sessions' output was lost, a
background review starting then wrapped ``/dev/null`` for good, and the file
was freed as the call ended, under any print still writing to it.

Contract: ``install(*modules)`` replaces ``_install_safe_stdio`` in each of
hermes' modules that holds it (they look it up by name at call time) with one
that leaves the streams alone, once; a module without it is skipped, and it
returns how many it replaced. The worker's streams already never raise
(``transport.stdio``), which is all hermes' wrapper adds. hermes' per-thread
router (``agent.thread_scoped_output``), installed at the first background
review, wraps them once and stays, as hermes means it to.
``keep(module)`` gives a hermes module a ``sys`` in which setting ``stdout``
or ``stderr`` does nothing (the output of what it calls goes to the worker's
streams) and which is the real ``sys`` in every other way, once; False,
changing nothing, when the module has no ``sys``.
"""

from __future__ import annotations

import sys
from typing import Any

_STREAMS = frozenset({"stdout", "stderr"})


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


class _StreamsKept:
    """``sys``, except that its ``stdout`` and ``stderr`` cannot be replaced."""

    def __init__(self, real: Any) -> None:
        object.__setattr__(self, "_real", real)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in _STREAMS:
            setattr(self._real, name, value)


def keep(module: Any) -> bool:
    current = getattr(module, "sys", None)
    if current is None:
        return False
    if current is sys:
        module.sys = _StreamsKept(sys)
    return True
