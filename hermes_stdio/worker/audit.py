"""What a block of imports takes from its surroundings.

Contract: between ``start()`` and ``stop()`` an ``ImportAudit`` records every
environment key read through ``os.environ`` (with the value seen, or None when
it was absent), every key set or deleted, whether the environment was
iterated, and every file opened (the ``open`` audit event) outside the
allowed roots: the interpreter's prefixes and the directories on
``sys.path`` that hold code (never the working directory).

``problems()`` lists what makes the imported state unsafe to share between
profiles: writes, iteration, files outside the roots. ``mismatches(env)``
names the keys whose value in ``env`` differs from the value the imports saw.

Limits: reads by C code through getenv(3) are not seen, and neither is state
taken from outside the environment and the file system (the clock, the
working directory).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from typing import Any

_Environ: Any = type(os.environ)


def _code_roots() -> tuple[str, ...]:
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    cwd = os.getcwd()
    for entry in sys.path:
        if entry and os.path.isabs(entry) and os.path.realpath(entry) != cwd:
            roots.add(entry)
    return tuple(sorted(os.path.join(os.path.realpath(r), "") for r in roots))


class ImportAudit:
    def __init__(self) -> None:
        self.reads: dict[str, str | None] = {}
        self.writes: set[str] = set()
        self.iterated = False
        self.outside_files: list[str] = []
        self._roots: tuple[str, ...] = ()
        self._active = False
        self._saved: dict[str, Any] = {}

    def start(self) -> None:
        self._roots = _code_roots()
        saved = self._saved = {
            name: getattr(_Environ, name)
            for name in ("__getitem__", "__contains__", "__iter__", "__setitem__", "__delitem__")
        }
        audit = self

        def getitem(env: Any, key: str) -> str:
            try:
                value: str = saved["__getitem__"](env, key)
            except KeyError:
                audit._read(key, None)
                raise
            audit._read(key, value)
            return value

        def contains(env: Any, key: object) -> bool:
            present: bool = saved["__contains__"](env, key)
            if isinstance(key, str):
                audit._read(key, saved["__getitem__"](env, key) if present else None)
            return present

        def iterate(env: Any) -> Iterator[str]:
            audit.iterated = audit.iterated or audit._active
            it: Iterator[str] = saved["__iter__"](env)
            return it

        def setitem(env: Any, key: str, value: str) -> None:
            if audit._active:
                audit.writes.add(key)
            saved["__setitem__"](env, key, value)

        def delitem(env: Any, key: str) -> None:
            if audit._active:
                audit.writes.add(key)
            saved["__delitem__"](env, key)

        replacements = {
            "__getitem__": getitem,
            "__contains__": contains,
            "__iter__": iterate,
            "__setitem__": setitem,
            "__delitem__": delitem,
        }
        for name, fn in replacements.items():
            setattr(_Environ, name, fn)
        self._active = True
        sys.addaudithook(self._hook)  # hooks cannot be removed: it goes quiet after stop()

    def stop(self) -> None:
        self._active = False
        for name, fn in self._saved.items():
            setattr(_Environ, name, fn)

    def _read(self, key: str, value: str | None) -> None:
        if self._active:
            self.reads.setdefault(key, value)

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self._active or event != "open" or not args:
            return
        path = args[0]
        if isinstance(path, int):  # os.fdopen of an fd we already hold
            return
        try:
            real = os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return
        if not real.startswith(self._roots) and real != os.devnull:
            self.outside_files.append(real)

    def problems(self) -> list[str]:
        found = [f"set or deleted environment variable {k}" for k in sorted(self.writes)]
        if self.iterated:
            found.append("iterated over the whole environment")
        found += [f"opened {p}" for p in dict.fromkeys(self.outside_files)]
        return found

    def mismatches(self, env: Mapping[str, str]) -> list[str]:
        return sorted(k for k, seen in self.reads.items() if env.get(k) != seen)
