"""Another profile's files are neither read nor written wherever hermes checks a
path.

hermes keeps one deny-list for reads (``agent.file_safety.get_read_block_error``:
credential stores, ``.env`` files), consulted by its file tools and by ``@``
references, and write guards for its file tools (``get_write_denied_error``,
``is_write_denied``, ``tools.file_tools._check_sensitive_path``, which refuses
the active profile's ``config.yaml``). They know the active profile's home and
the Hermes root, not the other profiles: the default profile's home is the
root, which holds every other profile under ``profiles/``, so
``@file:profiles/work/auth.json`` would attach another profile's keys, and a
``write_file`` to another profile's ``config.yaml`` could switch its approvals
off.

Contract: ``install(modules, own_home, root)`` wraps those checks in each given
module (hermes' own, and those that imported them by name), once. A path (``~``
expanded, relative to the task's directory where hermes resolves it so,
symlinks resolved) is another profile's when it lies in ``root`` or in
``root/profiles`` (resolved: it may be a symlink) but outside this profile's
files: for the default profile (whose home is ``root``) anything under
``root/profiles``; for a named profile anything outside its own home. Such a
read or write is refused with a message. hermes' own verdict comes first.
``root`` comes from the supervisor (``HERMES_STDIO_ROOT``), never from the
profile's path, which a symlinked ``profiles/`` moves. Like hermes' lists this
guards what the agent's file tools and references touch, not a sandbox: the
terminal runs as the same user.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

REFUSED = "path belongs to another Hermes profile and cannot be read"
REFUSED_WRITE = "path belongs to another Hermes profile and cannot be written"


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def foreign(path: str, own_home: Path, root: Path) -> bool:
    resolved = Path(os.path.realpath(os.path.expanduser(path)))
    profiles = Path(os.path.realpath(root / "profiles"))
    if own_home == root:
        return _within(resolved, profiles) or _within(resolved, root / "profiles")
    outside_own = not _within(resolved, own_home)
    return outside_own and (_within(resolved, root) or _within(resolved, profiles))


def _wrap(module: Any, name: str, make: Any) -> None:
    check = getattr(module, name, None)
    if callable(check) and not getattr(check, "fenced", False):
        wrapped = make(check)
        wrapped.fenced = True  # wrapping twice wraps once
        setattr(module, name, wrapped)


def install(modules: Iterable[Any], own_home: Path, root: Path) -> None:
    own_home, root = Path(os.path.realpath(own_home)), Path(os.path.realpath(root))

    def theirs(path: object) -> bool:
        return foreign(str(path), own_home, root)

    def error_check(refusal: Callable[[str], str]) -> Any:
        """Wraps a check returning an error message or None; ``refusal(path)`` is ours."""

        def wrap(check: Any) -> Any:
            def fenced(path: str, *args: Any, **kw: Any) -> str | None:
                verdict: str | None = check(path, *args, **kw)
                return refusal(path) if verdict is None and theirs(path) else verdict

            return fenced

        return wrap

    def write_denied(check: Any) -> Any:
        def fenced(path: str, *args: Any, **kw: Any) -> bool:
            return bool(check(path, *args, **kw)) or theirs(path)

        return fenced

    for module in modules:
        resolve = getattr(module, "_resolve_path_for_task", None)

        def sensitive(check: Any, _resolve: Any = resolve) -> Any:
            def fenced(filepath: str, task_id: str = "default", *a: Any, **kw: Any) -> str | None:
                verdict = check(filepath, task_id, *a, **kw)
                if verdict is not None:
                    return verdict  # type: ignore[no-any-return]
                try:  # relative to the task's directory, as hermes resolves it
                    target = str(_resolve(filepath, task_id)) if callable(_resolve) else filepath
                except (OSError, ValueError):
                    target = filepath
                return f"{REFUSED_WRITE}: {filepath}" if theirs(target) else None

            return fenced

        _wrap(module, "get_read_block_error", error_check(lambda _path: REFUSED))
        _wrap(module, "get_write_denied_error", error_check(lambda p: f"{REFUSED_WRITE}: {p}"))
        _wrap(module, "is_write_denied", write_denied)
        _wrap(module, "_shared_is_write_denied", write_denied)
        _wrap(module, "_check_sensitive_path", sensitive)


def hermes_root(own_home: Path, profile: str | None) -> Path:
    """The Hermes root: the default profile's home; a named one's is root/profiles/<name>."""
    return own_home if profile in (None, "", "default") else own_home.parent.parent
