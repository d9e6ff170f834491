"""``soul/read`` and ``soul/write``: a profile's SOUL.md, read and replaced by the
supervisor itself, off the host's reader (no worker is started or asked: hermes
reads the file whenever it builds a new session's system prompt).

Contract (a mixin of ``Supervisor``, which provides ``home``, ``_key`` and
``_in_thread``):
- ``soul/read``: the file's path (a symlink not resolved), its version (the
  SHA-256 of its bytes) and its text, read as UTF-8 with an undecodable byte
  as U+FFFD; a missing file (or a dangling symlink, which hermes reads as none)
  is version null and ``""``.
- ``soul/write``: ``content`` of at most ``MAX_SOUL_CHARS`` characters
  (``invalid_params``) replaces the file at once (``transport.file_replace``,
  under the directory's flock: through a symlink, which stays; its mode kept,
  0600 for a new file as hermes seeds it). With ``expectedVersion``, a file
  that holds anything else is ``config_conflict`` (``data.version``, the
  file's now), nothing written.
- Both refuse a SOUL.md that is there but is not a regular file
  (``profile_unreadable``, ``data.file`` ``"SOUL.md"``): a FIFO would block the
  read for ever, and one is never written into.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..protocol import soul as so
from ..transport.file_replace import flocked, replace_file
from ..transport.profile_files import not_regular, read_regular
from ..wire import ErrorType, Request, RpcError
from .profiles import profile_home
from .routes import SlotKey

SOUL = "SOUL.md"


class SoulMethods:
    home: Path
    _key: Callable[[str | None, str | None], SlotKey]
    _in_thread: Callable[[Request, Callable[[], Any]], None]

    def _h_soul_read(self, req: Request, p: so.SoulReadParams) -> None:
        name, path = self._soul(p.profile)
        self._in_thread(req, lambda: _read(name, path))

    def _h_soul_write(self, req: Request, p: so.SoulWriteParams) -> None:
        if len(p.content) > so.MAX_SOUL_CHARS:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                f"content is longer than {so.MAX_SOUL_CHARS} characters",
                field="params.content",
            )
        name, path = self._soul(p.profile)
        data = p.content.encode("utf-8")

        def write() -> so.SoulWriteResult:
            real = Path(os.path.realpath(path))
            with flocked(real.parent):
                now = _read(name, path).version
                if p.expected_version is not None and p.expected_version != now:
                    raise RpcError(
                        ErrorType.CONFIG_CONFLICT, f"{SOUL} changed since that version", version=now
                    )
                replace_file(real, data, 0o600)
            return so.SoulWriteResult(hashlib.sha256(data).hexdigest())

        self._in_thread(req, write)

    def _soul(self, profile: str | None) -> tuple[str, Path]:
        name = self._key(profile, None)[0]
        return name, profile_home(self.home, name) / SOUL


def _read(name: str, path: Path) -> so.SoulReadResult:
    raw = read_regular(path)
    if raw is None and not_regular(path):
        raise RpcError(
            ErrorType.PROFILE_UNREADABLE,
            f"profile {name!r}: {SOUL} is not a regular file",
            profile=name,
            file=SOUL,
        )
    if raw is None:
        return so.SoulReadResult(str(path), None, "")
    text = raw.decode("utf-8", errors="replace")
    return so.SoulReadResult(str(path), hashlib.sha256(raw).hexdigest(), text)
