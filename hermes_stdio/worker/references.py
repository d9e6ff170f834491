"""``@`` references in a turn's message (``@file:path``, ``@folder:path``,
``@diff``, ``@staged``, ``@git:N``, ``@url:address``), expanded the way hermes'
CLI and TUI expand them.

Contract: ``expand(hermes_refs, message, cwd, context_length)`` takes hermes'
``agent.context_references`` module. A message without references gives None
(nothing is read). Otherwise hermes reads what they name, relative to ``cwd``
and refusing anything outside it, and the result is the message to send (the
references replaced by an attached-context section) and the
``references.expanded`` event: the ``references`` as typed, hermes'
``warnings``, ``injectedTokens`` and ``blocked``: hermes refuses to attach
more than half the model's context window, and then nothing is attached.
- A folder's listing names each file with its line count, which hermes gets by
  reading the file whole. One that is there but is neither a regular file nor
  a directory (``context_files.hangs``: a FIFO, whose read would block for
  ever, or a link to a device such as ``/dev/zero``, whose read would never
  end) is listed as ``not a regular file``, unread. When hermes has no such
  helper to wrap, the worker logs it once and hermes' own listing is used.

``refusal(hermes_refs)`` is hermes' rule for what a reference may attach, as a
test of an absolute, resolved path (true: refused): its credential and
internal paths and its read deny-list (which the worker's ``fence`` extends to
other profiles' files). Where hermes has no such rule to call, it is its read
deny-list alone; where it has neither, every path is refused.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..protocol import events as ev
from ..transport.log import log
from .context_files import hangs

_MARK = "_hermes_stdio_leaves_special_files_unread"
_HELPER = "_file_metadata"  # hermes' per-file note in a folder listing


def expand(
    hermes_refs: Any, message: str, cwd: str, context_length: int
) -> tuple[str, ev.ReferencesExpandedEvent] | None:
    if "@" not in message or not hermes_refs.parse_context_references(message):
        return None
    _leave_special_files_unread(hermes_refs)
    found = hermes_refs.preprocess_context_references(
        message, cwd=cwd, allowed_root=cwd, context_length=context_length
    )
    event = ev.ReferencesExpandedEvent(
        references=[str(ref.raw) for ref in found.references],
        warnings=[str(w) for w in found.warnings],
        injected_tokens=int(found.injected_tokens),
        blocked=bool(found.blocked),
    )
    return str(found.message), event


def _leave_special_files_unread(hermes_refs: Any) -> None:
    metadata: Any = getattr(hermes_refs, _HELPER, None)
    if getattr(metadata, _MARK, False) or getattr(hermes_refs, _MARK, False):
        return
    setattr(hermes_refs, _MARK, True)  # tried, once
    if not callable(metadata):
        log("worker: hermes' folder listing changed: a FIFO in an @folder: would hang a run")
        return

    @functools.wraps(metadata)
    def file_metadata(path: Any) -> Any:
        return "not a regular file" if hangs(path) else metadata(path)

    setattr(file_metadata, _MARK, True)
    setattr(hermes_refs, _HELPER, file_metadata)


def refusal(hermes_refs: Any) -> Callable[[str], bool]:
    ensure = getattr(hermes_refs, "_ensure_reference_path_allowed", None)
    if callable(ensure):

        def refused(path: str) -> bool:
            try:
                ensure(Path(path))
            except ValueError:
                return True
            return False

        return refused
    try:
        from agent.file_safety import get_read_block_error
    except ImportError:
        log("worker: hermes has no read rule for references: completing none")
        return lambda _path: True
    return lambda path: get_read_block_error(path) is not None
