"""A skill's ``SKILL.md``, read, replaced, created and deleted as hermes' dashboard
and ``skill_manage`` do (``skill/read``, ``skill/write``, ``skill/create``,
``skill/delete``).

Contract: ``SkillDocs(hermes)``, with hermes' parts in ``HermesSkillDocs``.
A skill is found by name as hermes' ``skill_manage`` finds it (the profile's
``skills/`` directory, then ``skills.external_dirs``). ``version`` is the
SHA-256 of the file's bytes; text that is not UTF-8 reads as U+FFFD.
- ``read(name)``: a ``Doc`` (name, path of its ``SKILL.md``, version, text).
- ``write(name, content, expected)``: replaces the ``SKILL.md`` through hermes'
  own edit (its frontmatter, size and optional security-scan checks), unless
  ``expected`` is given and the file now holds another version
  (``config_file.Conflict``, with the version now).
- ``create(name, content, category)``: a new skill through hermes' own create
  (in ``skills/[category/]name/``); ``SkillTaken`` when any skill has the name.
- ``delete(name)``: removes the skill's directory through hermes' own delete
  (its pinned and target checks); the ``SKILL.md`` path it had.
``UnknownSkill`` for a name no skill has; ``SkillRefused(field, why)`` for
what hermes refuses, ``field`` naming the param at fault; ``SkillReadOnly``
when the file system refuses the change (a read-only external directory,
say: permission denied or a read-only file system); ``Unusable`` for a
``SKILL.md`` that is there but is not a regular file (read, written or
replaced, it would block). One lock orders these requests, so a version check
and its write are one step for them (an agent's ``skill_manage`` is not
held back). After a change hermes' skills prompt cache is cleared, so the
next session's system prompt lists the skill as it is now.
"""

from __future__ import annotations

import errno
import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..transport.profile_files import read_regular
from .config_file import Conflict, Unusable
from .context_files import hangs
from .skill_toggles import UnknownSkill

Outcome = dict[str, Any]  # hermes' {"success": bool, "error": str, ...}


class SkillTaken(Exception):
    def __init__(self, name: str, path: Path) -> None:
        super().__init__(f"a skill named {name!r} is already at {path}")
        self.name = name


class SkillReadOnly(Exception):
    def __init__(self, name: str, exc: OSError) -> None:
        super().__init__(f"skill {name!r} cannot be changed there: {exc.strerror or exc}")
        self.name = name


class SkillRefused(Exception):
    def __init__(self, field: str, why: str) -> None:
        super().__init__(why)
        self.field = field


@dataclass(frozen=True)
class HermesSkillDocs:
    find: Callable[[str], Path | None]  # the skill's directory (skill_manager_tool._find_skill)
    check_name: Callable[[str], str | None]  # _validate_name: why not, or None
    check_category: Callable[[str | None], str | None]  # _validate_category
    create: Callable[[str, str, str | None], Outcome]  # _create_skill
    edit: Callable[[str, str], Outcome]  # _edit_skill
    delete: Callable[[str], Outcome]  # _delete_skill, declared a plain prune
    changed: Callable[[], None]  # clear_skills_system_prompt_cache(clear_snapshot=True)


@dataclass(frozen=True)
class Doc:
    name: str
    path: str
    version: str
    content: str


class SkillDocs:
    def __init__(self, hermes: HermesSkillDocs) -> None:
        self.hermes = hermes
        self._lock = threading.Lock()

    def read(self, name: str) -> Doc:
        with self._lock:
            return self._doc(name, self._file(name))

    def write(self, name: str, content: str, expected: str | None) -> Doc:
        with self._lock:
            path = self._file(name)
            if expected is not None:
                now = _version(path)
                if now != expected:
                    raise Conflict(now, f"skill {name}'s SKILL.md changed since that version")
            self._done(_guarded(name, lambda: self.hermes.edit(name, content)), "content")
            return self._doc(name, path)

    def create(self, name: str, content: str, category: str | None) -> Doc:
        with self._lock:
            for field, why in (
                ("name", self.hermes.check_name(name)),
                ("category", self.hermes.check_category(category)),
            ):
                if why:
                    raise SkillRefused(field, why)
            taken = self.hermes.find(name)
            if taken is not None:
                raise SkillTaken(name, taken)
            made = _guarded(name, lambda: self.hermes.create(name, content, category))
            self._done(made, "content")
            return self._doc(name, self._file(name))

    def delete(self, name: str) -> str:
        with self._lock:
            path = self._file(name)
            self._done(_guarded(name, lambda: self.hermes.delete(name)), "name")
            return str(path)

    def _file(self, name: str) -> Path:
        found = self.hermes.find(name)
        if found is None:
            raise UnknownSkill(name)
        path = found / "SKILL.md"
        if hangs(path):
            raise Unusable("is not a regular file", str(path))
        return path

    def _done(self, outcome: Outcome, field: str) -> None:
        if not outcome.get("success"):
            raise SkillRefused(field, str(outcome.get("error") or "hermes refused it"))
        self.hermes.changed()

    def _doc(self, name: str, path: Path) -> Doc:
        raw = read_regular(path)  # checked on the open file: a FIFO swapped in never blocks
        if raw is None:
            raise Unusable("is not a regular file", str(path))
        return Doc(name, str(path), hashlib.sha256(raw).hexdigest(), raw.decode(errors="replace"))


def _guarded(name: str, change: Callable[[], Outcome]) -> Outcome:
    try:
        return change()
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise SkillReadOnly(name, exc) from exc
        raise


def _version(path: Path) -> str | None:
    raw = read_regular(path)
    return None if raw is None else hashlib.sha256(raw).hexdigest()
