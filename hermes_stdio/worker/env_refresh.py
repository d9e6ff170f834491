"""The profile's ``.env``, applied again in this worker whenever it changes, so a
key saved by another worker of the profile, or by the user's editor, reaches the
agents built here from then on without a restart.

hermes loads ``.env`` into ``os.environ`` once, at import; its TUI's
``reload.env`` loads it again on request, and also unsets each variable it knows
that the file no longer sets, even one the environment gave. This applies only
what the file changed.

Contract: ``EnvRefresh(hermes)``, with hermes' parts in ``HermesDotenv``, takes
the file as hermes loaded it at import (constructed right after). ``refresh()``,
called before each agent build and each ``env/*`` request, does nothing when the
file's stat signature is what it was at the last look and the file had settled
then (``transport.profile_files``: a change within the clock's granularity may
keep the signature). Otherwise it reads the
file through hermes' parser and applies the change since the last read to
``environ``: a variable whose value is new or different is set, one the file no
longer sets is unset. Left alone, to apply at the worker's next start as hermes
loads them:
- a name the administrator's managed ``.env`` sets (it wins, as at hermes' start);
- a name hermes' writer refuses (``PATH``, ``LD_PRELOAD``, ``HERMES_HOME``...):
  changing how this running process loads code is not a key's change;
- a value that holds a NUL (no environment can hold one).
A file that is there but is not a regular file is not read (a FIFO would hang);
one that is gone sets nothing. It returns the names whose value in the file
changed (a change this worker's ``env/set`` made in ``environ`` already too),
never a value.

Each refresh that changed names is a new generation: ``changed_since(g)`` gives
the generation now and the names changed after generation ``g`` (0: the file as
hermes loaded it), for the shells started before (``shell_env``).
Thread-safe: refreshes run one at a time.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path

from ..transport.profile_files import not_regular, settled, signature

Signature = tuple[int, ...] | None


@dataclass(frozen=True)
class HermesDotenv:
    path: Path
    load: Callable[[], Mapping[str, str]]  # hermes' parse of the file (load_env, uncached)
    managed: Callable[[], Mapping[str, str]]  # the managed .env's variables
    refused: Callable[[str], bool]  # a name hermes' writer refuses
    environ: MutableMapping[str, str] = field(default_factory=lambda: os.environ)
    clock: Callable[[], int] = time.time_ns


def _look(path: Path, now_ns: int) -> tuple[Signature, bool]:
    """The file's signature (None: not there) and whether it had settled."""
    try:
        st = path.stat()
    except OSError:
        return None, True
    return signature(st), settled(st, now_ns)


class EnvRefresh:
    def __init__(self, hermes: HermesDotenv) -> None:
        self.hermes = hermes
        self._lock = threading.Lock()
        self._look = _look(hermes.path, hermes.clock())
        self._seen = self._read()
        self._generation = 0
        self._changed: dict[str, int] = {}  # name -> the generation that last changed it

    def refresh(self) -> list[str]:
        with self._lock:
            last, self._look = self._look, _look(self.hermes.path, self.hermes.clock())
            if self._look[0] == last[0] and last[1]:
                return []
            if not_regular(self.hermes.path):
                return []  # a FIFO: never read (profile/list says why)
            read = self._read()
            seen, self._seen = self._seen, read
            changed = self._apply(seen, read)
            if changed:
                self._generation += 1
                self._changed.update(dict.fromkeys(changed, self._generation))
            return changed

    def changed_since(self, generation: int) -> tuple[int, list[str]]:
        with self._lock:
            names = [n for n, g in self._changed.items() if g > generation]
            return self._generation, sorted(names)

    def _read(self) -> dict[str, str]:
        if not self.hermes.path.exists() or not_regular(self.hermes.path):
            return {}
        return dict(self.hermes.load())

    def _apply(self, seen: Mapping[str, str], read: Mapping[str, str]) -> list[str]:
        managed, environ = self.hermes.managed(), self.hermes.environ
        changed = []
        for name in sorted(set(seen) | set(read)):
            if seen.get(name) == read.get(name) or name in managed or self.hermes.refused(name):
                continue
            value = read.get(name)
            if value is None:
                environ.pop(name, None)
            elif "\0" in value:
                continue
            elif environ.get(name) != value:
                environ[name] = value
            changed.append(name)
        return changed
