"""Skill files hermes would hang reading are left out of its skill scans.

Contract: ``install(skill_utils, prompt_builder)`` takes hermes-agent's
``agent.skill_utils`` and ``agent.prompt_builder`` (passed in by the adapter)
and wraps hermes' ``iter_skill_index_files`` in both, so that the
``SKILL.md`` and ``DESCRIPTION.md`` files its scans find leave out any that
is there but is neither a regular file nor a directory
(``context_files.hangs``: a FIFO, a device, a socket). hermes then treats
that skill as absent: in the system prompt's skill index, ``skills_list``,
``skill_view`` by name and the slash commands. Each file left out is logged
once per worker. Installing again changes nothing; ``install`` returns False,
logs it and changes nothing when hermes' internals are not the ones this was
written against.

Why: hermes reads every file those scans find, whole, when it builds the
skill index (a session's first turn), lists skills or looks one up by name.
A FIFO blocks that read until something writes to it, so the turn hangs past
any interrupt; a device may never end.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

from ..transport.log import log
from .context_files import hangs

_MARK = "_hermes_stdio_skips_unreadable"
_NAME = "iter_skill_index_files"
_logged: set[Path] = set()
_lock = threading.Lock()


def install(skill_utils: Any, prompt_builder: Any) -> bool:
    found: Any = getattr(skill_utils, _NAME, None)
    if not callable(found) or getattr(prompt_builder, _NAME, None) is not found:
        log("worker: hermes' skill scan changed: a FIFO among the skills would hang a turn")
        return False
    if getattr(found, _MARK, False):
        return True
    scan = cast("Callable[[Path, str], Iterator[Path]]", found)

    @functools.wraps(scan)
    def readable(skills_dir: Path, filename: str) -> Iterator[Path]:
        for path in scan(skills_dir, filename):
            if not hangs(path):
                yield path
            else:
                _left_out(path)

    setattr(readable, _MARK, True)
    setattr(skill_utils, _NAME, readable)
    setattr(prompt_builder, _NAME, readable)
    return True


def _left_out(path: Path) -> None:
    with _lock:
        if path in _logged:
            return
        _logged.add(path)
    log(f"worker: skill file {path} is not a regular file (a FIFO or a device?): left out")
