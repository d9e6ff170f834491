"""Reads of another profile's files are refused wherever hermes checks a read.

hermes keeps one deny-list for reads (``agent.file_safety.get_read_block_error``:
credential stores, ``.env`` files), consulted by its file tools and by ``@``
references; it knows the active profile's home and the Hermes root, not the
other profiles. The default profile's home is the Hermes root, which holds
every other profile under ``profiles/``: ``@file:profiles/work/auth.json``
would attach another profile's keys.

Contract: ``install(modules, own_home, root)`` wraps ``get_read_block_error``
in each given module (hermes' own, and those that imported it by name), once.
A path (``~`` expanded, symlinks resolved) inside ``root`` but outside this
profile's files is refused with a message: for the default profile (whose
home is ``root``) anything under ``root/profiles``; for a named profile
anything in ``root`` outside its own home. hermes' own verdict comes first.
Like hermes' list this is a guard on what is read for the agent, not a
sandbox: the terminal runs as the same user.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REFUSED = "path belongs to another Hermes profile and cannot be read"


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def foreign(path: str, own_home: Path, root: Path) -> bool:
    resolved = Path(os.path.realpath(os.path.expanduser(path)))
    if not _within(resolved, root):
        return False
    if own_home == root:
        return _within(resolved, root / "profiles")
    return not _within(resolved, own_home)


def install(modules: Iterable[Any], own_home: Path, root: Path) -> None:
    own_home, root = Path(os.path.realpath(own_home)), Path(os.path.realpath(root))
    for module in modules:
        check = getattr(module, "get_read_block_error", None)
        if not callable(check) or getattr(check, "fenced", False):
            continue

        def fenced(path: str, *args: Any, _check: Any = check, **kw: Any) -> str | None:
            verdict = _check(path, *args, **kw)
            if verdict is None and foreign(str(path), own_home, root):
                return REFUSED
            return verdict  # type: ignore[no-any-return]

        fenced.fenced = True  # type: ignore[attr-defined]
        module.get_read_block_error = fenced


def hermes_root(own_home: Path, profile: str | None) -> Path:
    """The Hermes root: the default profile's home; a named one's is root/profiles/<name>."""
    return own_home if profile in (None, "", "default") else own_home.parent.parent
