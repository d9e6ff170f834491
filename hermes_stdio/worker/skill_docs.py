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
replaced, it would block). One lock orders these requests in a worker, and
a ``flock`` across processes (``file_replace.flocked``: on the skill's
directory for a write or delete, on the profile's skills directory for a
create), so a version check and its write, or a name check and its create,
are one step for every worker of the profile (an agent's ``skill_manage`` is
not held back). After a change hermes' skills prompt cache is cleared, so
the next session's system prompt lists the skill as it is now.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ..transport.file_replace import flocked
from ..transport.profile_files import read_regular
from .config_file import Conflict, Unusable
from .context_files import hangs
from .skill_toggles import UnknownSkill

Outcome = dict[str, Any]  # hermes' {"success": bool, "error": str, ...}
_T = TypeVar("_T")


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
    root: Callable[[], Path]  # where a skill is created (_skills_dir)
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
        with self._lock, self._held(name) as path:
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
            root = self.hermes.root()
            _guarded(name, lambda: root.mkdir(parents=True, exist_ok=True))
            with flocked(root):
                taken = self.hermes.find(name)
                if taken is not None:
                    raise SkillTaken(name, taken)
                made = _guarded(name, lambda: self.hermes.create(name, content, category))
                self._done(made, "content")
                return self._doc(name, self._file(name))

    def delete(self, name: str) -> str:
        with self._lock, self._held(name) as path:
            self._done(_guarded(name, lambda: self.hermes.delete(name)), "name")
            return str(path)

    @contextlib.contextmanager
    def _held(self, name: str) -> Iterator[Path]:
        """The skill's ``SKILL.md``, its directory locked against other workers."""
        path = self._file(name)
        try:
            with flocked(path.parent):
                # Found again under the lock: another worker may have moved or
                # deleted it while we waited.
                if self._file(name) != path:
                    raise UnknownSkill(name)
                yield path
        except FileNotFoundError as exc:
            if exc.filename != str(path.parent):
                raise
            raise UnknownSkill(name) from None

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


def _guarded(name: str, change: Callable[[], _T]) -> _T:
    try:
        return change()
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise SkillReadOnly(name, exc) from exc
        raise


def _version(path: Path) -> str | None:
    raw = read_regular(path)
    return None if raw is None else hashlib.sha256(raw).hexdigest()
