"""A hermes module reads the calling turn's session variables, not the process's.

hermes writes ``HERMES_SESSION_ID`` into ``os.environ`` as it builds each agent
and at each compression split: in a worker with several sessions it holds the
id of whichever session's agent was built last. Most of hermes reads its
session variables through ``gateway.session_context.get_session_env``, which
prefers the calling context's value; its kanban tools read ``os.environ``
instead, so ``kanban_create`` stamped a task with another session's id.

Contract: ``install(module, get_session_env, names)`` gives ``module`` an
``os`` that is the real ``os`` in every way but two: ``os.environ`` reads each
of ``names`` through ``get_session_env`` (the calling context's value if it set
one, even empty; else the process's; a name set in neither is missing) and
every other name from the real environment, to which all writes go; and
``os.getenv`` reads through that view. It does this once (installing again adds
no layer) and returns True; False, changing nothing, when the module has no
``os``. ``install_hermes(module)`` does it with hermes' reader and the names of
its session context, and returns False (changing nothing) when those are not
there.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import Any

_MISSING = "\0missing"  # no value an environment can hold


class _SessionEnviron(MutableMapping[str, str]):
    def __init__(self, read: Callable[[str, str], str], names: frozenset[str]) -> None:
        self._read, self._names = read, names

    def __getitem__(self, name: str) -> str:
        if name in self._names:
            value = self._read(name, _MISSING)
            if value == _MISSING:
                raise KeyError(name)
            return value
        return os.environ[name]

    def __setitem__(self, name: str, value: str) -> None:
        os.environ[name] = value

    def __delitem__(self, name: str) -> None:
        del os.environ[name]

    def __iter__(self) -> Iterator[str]:
        process = list(os.environ)
        only_session = [n for n in sorted(self._names - set(process)) if n in self]
        return iter(process + only_session)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def copy(self) -> dict[str, str]:
        return dict(self.items())


class _SessionOs:
    """``os``, except that ``environ`` and ``getenv`` read the session's variables."""

    def __init__(self, environ: _SessionEnviron) -> None:
        self.environ = environ

    def getenv(self, name: str, default: str | None = None) -> str | None:
        return self.environ.get(name, default)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


def install(module: Any, get_session_env: Callable[[str, str], str], names: Iterable[str]) -> bool:
    current = getattr(module, "os", None)
    if current is None:
        return False
    if current is os:
        module.os = _SessionOs(_SessionEnviron(get_session_env, frozenset(names)))
    return True


def install_hermes(module: Any) -> bool:
    try:
        from gateway import session_context
    except ImportError:
        return False
    read = getattr(session_context, "get_session_env", None)
    names = getattr(session_context, "_VAR_MAP", None)
    if not callable(read) or not isinstance(names, dict):
        return False
    return install(module, read, names)
