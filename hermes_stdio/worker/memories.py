"""What a profile's agents remember across sessions (``memory/list``,
``memory/add``, ``memory/replace``, ``memory/remove``), through hermes' own
``MemoryStore``.

Contract: ``Memories(hermes)``, with hermes' parts in ``HermesMemory``.
- ``listed()`` gives both stores (``memory``: MEMORY.md, ``user``: USER.md) as
  hermes reads them: their entries in order (duplicates once), each with why
  hermes keeps it out of its agents' prompts (its injection scan) or None, the
  characters they take and hermes' limit, and whether the profile uses it.
- ``add(target, content)``, ``replace(target, entry, content)`` and
  ``remove(target, entry)`` go through the store's own operations: its scan,
  its limit, its file lock, its refusal to rewrite a file edited by hand in a
  way it cannot keep. Each gives the store now. An entry is named by its whole
  text: when no entry is that text, ``UnknownEntry``; what hermes refuses is
  ``MemoryRefused`` with its reason (and when another entry holds the named
  one's text, hermes cannot tell them apart: refused too).
- A store's file that is there but is not a regular file is never read
  (``config_file.Unusable``, naming it: a FIFO would hang the read).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ..protocol.memory import MemoryEntry, MemoryStoreInfo, MemoryTarget
from ..transport.profile_files import not_regular
from .config_file import Unusable

TARGETS: tuple[MemoryTarget, ...] = ("memory", "user")


class UnknownEntry(Exception):
    pass


class MemoryRefused(Exception):
    pass


@dataclass(frozen=True)
class HermesMemory:
    home: Path
    store: Callable[[], Any]  # a MemoryStore with the profile's limits
    read: Callable[[Path], list[str]]  # MemoryStore._read_file
    enabled: Callable[[], dict[str, bool]]  # by target
    blocked: Callable[[str], str | None]  # its strict injection scan
    delimiter: str = "\n§\n"


class Memories:
    def __init__(self, hermes: HermesMemory) -> None:
        self.hermes = hermes

    def listed(self) -> list[MemoryStoreInfo]:
        store, enabled = self.hermes.store(), self.hermes.enabled()
        return [self._info(store, target, enabled) for target in TARGETS]

    def add(self, target: MemoryTarget, content: str) -> MemoryStoreInfo:
        return self._change(target, lambda store: store.add(target, content))

    def replace(self, target: MemoryTarget, entry: str, content: str) -> MemoryStoreInfo:
        return self._change(target, lambda store: store.replace(target, entry, content), entry)

    def remove(self, target: MemoryTarget, entry: str) -> MemoryStoreInfo:
        return self._change(target, lambda store: store.remove(target, entry), entry)

    def _change(
        self, target: MemoryTarget, act: Callable[[Any], Any], entry: str | None = None
    ) -> MemoryStoreInfo:
        store = self.hermes.store()
        current = self._entries(store, target)  # also: never hand hermes a FIFO
        if entry is not None and entry.strip() not in current:
            raise UnknownEntry(entry)
        answer = cast(dict[str, Any], act(store))
        if not answer.get("success"):
            error = str(answer.get("error") or "hermes refused the change")
            if error.startswith("No entry matched"):  # it went meanwhile
                raise UnknownEntry(entry or "")
            if answer.get("matches"):
                error = "another entry holds this entry's text: hermes cannot tell them apart"
            raise MemoryRefused(error)
        return self._info(store, target, self.hermes.enabled())

    def _path(self, store: Any, target: MemoryTarget) -> Path:
        path = Path(store._path_for(target))
        if not_regular(path):
            raise Unusable("is not a regular file", str(path.relative_to(self.hermes.home)))
        return path

    def _entries(self, store: Any, target: MemoryTarget) -> list[str]:
        return list(dict.fromkeys(self.hermes.read(self._path(store, target))))

    def _info(self, store: Any, target: MemoryTarget, enabled: dict[str, bool]) -> MemoryStoreInfo:
        entries = self._entries(store, target)
        limit = store.user_char_limit if target == "user" else store.memory_char_limit
        return MemoryStoreInfo(
            target=target,
            enabled=bool(enabled.get(target, False)),
            entries=[MemoryEntry(text, self.hermes.blocked(text)) for text in entries],
            chars=len(self.hermes.delimiter.join(entries)),  # as hermes counts them
            char_limit=int(limit),
        )
