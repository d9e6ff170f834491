"""File edits held for the host's review (``run/start``'s ``reviewEdits``).

hermes asks one hook before each ``write_file`` or ``patch`` call runs, the one
its ACP adapter reviews edits through
(``acp_adapter.edit_approval.maybe_require_edit_approval``, looked up at each
call): a JSON tool error it returns blocks the call, None lets it run.

Contract:
- ``install(edit_approval)`` wraps that hook in this process, once (True when
  it is in place; ``hooked()`` says later whether it is). Calls outside
  ``reviewing(session)`` (a context manager for a turn's thread, setting
  ``REVIEWING``: hermes copies it into the threads its tools run on, and
  ``inturn`` into those its subagents run on), or of a session whose
  ``review_edits`` is off, go to hermes' own hook.
- Within it, the edit is worked out without writing anything
  (``edit_proposals.propose``, its paths resolved for the task calling: a
  subagent's or a cron job's own directory, not the session's) and put to the
  host through hermes' approval gate, as a command is: ``approval/requested``
  with the files it would change as ``edits``, answered by
  ``approval/respond``, closed by ``approval/resolved``
  (``approvals.ApprovalBridge``), within the profile's ``approvals.timeout``,
  and an interrupt ends the wait.
- ``once`` writes it, if it still is what the host saw: it is worked out again
  after the answer, and when a file changed meanwhile so that the edit would
  now change something else, the host is asked again with the new ``edits``
  (``ASKS`` times at most, then it is blocked); when it can no longer apply,
  it is blocked with the tool's error.
- ``session`` (and ``always``, which is not offered: ``allowPermanent`` is
  false) also lets the session's later edits be written unasked, except those
  touching a guarded file: one outside the session's workspace (the worker's
  directory without one), kept from the agent (a .env), or in a .git or .ssh
  directory. Those are asked about each time, a ``session`` answer covering
  the same files only. ``deny``, a timeout or an interrupt blocks it, and the
  agent is told the file was not modified (with the host's reason). A session
  in autoApprove, or a profile in YOLO mode, writes unasked.
- An edit hermes' tool would refuse anyway is not asked about: a path its
  write guard protects goes to the tool, which says why; a patch that cannot
  apply is blocked here with the error the tool would give.
- A subagent run within the turn, or a cron job the agent runs now, is asked
  about in the turn's run. No host to ask blocks the edit: a background
  subagent's (``inturn.in_background``), or one made when no turn of the
  session is open; so does anything that goes wrong here.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import PurePath
from types import FrameType
from typing import Any

from ..protocol.events import FileEdit
from ..protocol.model import encode
from ..transport.log import log
from . import inturn, terminal_dir
from .edit_proposals import Refused, propose
from .edits import hidden, shown_as
from .keys import hermes_session_key
from .state import Session

EDIT_PATTERN = "file edit"
_MARK = "_hermes_stdio_reviews"
_install_lock = threading.Lock()
_hooked = threading.Event()
REVIEWING: ContextVar[Session | None] = ContextVar("hermes_stdio_reviewing", default=None)


@contextlib.contextmanager
def reviewing(session: Session) -> Iterator[None]:
    token = REVIEWING.set(session)
    try:
        yield
    finally:
        REVIEWING.reset(token)


def hooked() -> bool:
    """Whether ``install`` wrapped hermes' hook in this process: without it, edits
    cannot be reviewed."""
    return _hooked.is_set()


def install(edit_approval: Any) -> bool:
    with _install_lock:
        original = getattr(edit_approval, "maybe_require_edit_approval", None)
        if not callable(original):
            return False
        if getattr(original, _MARK, False):
            _hooked.set()
            return True

        def guarded(tool_name: str, arguments: dict[str, Any]) -> str | None:
            session = REVIEWING.get()
            if session is None or not session.review_edits or tool_name not in _TOOLS:
                verdict = original(tool_name, arguments)
                return None if verdict is None else str(verdict)
            if inturn.in_background():
                return _blocked("no user is there to review a background subagent's edit")
            caller = sys._getframe(1)
            try:
                task = _calling_task(caller) or session.session_id
                return _review(session, task, tool_name, dict(arguments or {}))
            except Exception as e:  # the edit is not written unreviewed
                log(f"worker: cannot put an edit to the host ({type(e).__name__}: {e})")
                return _blocked("the edit could not be put to the user for review")

        setattr(guarded, _MARK, True)
        edit_approval.maybe_require_edit_approval = guarded
        _hooked.set()
        return True


_TOOLS = ("write_file", "patch")
ASKS = 3  # times one edit is put to the user while its files keep changing
AGAIN = "(asked again: a file changed during review)"


def _calling_task(frame: FrameType | None) -> str | None:
    """The task the tool call runs for, whose directory its relative paths resolve
    in: a subagent's or a cron job's own, not the session's. hermes hands the hook
    none, so it is read from the call that asks (``model_tools.handle_function_call``,
    whose tools take ``task_id or "default"``); None when that is not the caller."""
    if frame is None or frame.f_code.co_name != "handle_function_call":
        return None
    task = frame.f_locals.get("task_id")
    return task if isinstance(task, str) and task else "default"


def _review(session: Session, task: str, tool: str, args: dict[str, Any]) -> str | None:
    from tools import approval, file_tools

    sid = session.session_id
    if _refused_by_hermes(file_tools, tool, args, task):
        return None  # hermes' tool says why
    root = session.workspace or terminal_dir.current()
    try:
        edits = propose(tool, args, task, root)
    except Refused as e:
        return json.dumps({"error": str(e)}, ensure_ascii=False)
    if not edits:
        return None  # nothing would change
    # the session's key, also on a subagent's thread, where hermes has none
    key = hermes_session_key(sid)
    if getattr(approval, "_YOLO_MODE_FROZEN", False) or approval.is_session_yolo_enabled(key):
        return None
    for again in range(ASKS):
        pattern = _pattern(edits, root)
        if approval.is_approved(key, pattern):
            return None
        with approval._lock:
            notify = approval._gateway_notify_cbs.get(key)
        if notify is None:
            return _blocked("no user is there to review the edit")
        decision = approval._await_gateway_decision(
            key, notify, _request(tool, edits, root, pattern, bool(again)), surface="hermes-stdio"
        )
        choice = decision.get("choice") if decision.get("resolved") else None
        if choice in ("session", "always"):
            approval.approve_session(key, pattern)
            return None  # the edits it lets through unasked include this one as it now is
        if choice is None:
            return _blocked("the user did not answer in time (silence is not consent)")
        if choice != "once":
            reason = decision.get("reason")
            return _blocked("the user denied it" + (f': "{reason}"' if reason else ""))
        # what is written must be what the user saw: a file may have changed meanwhile
        try:
            now = propose(tool, args, task, root)
        except Refused as e:
            return json.dumps(
                {"error": f"{e} (the file changed during review)"}, ensure_ascii=False
            )
        if now == edits or not now:  # as approved, or the file already holds what it would write
            return None
        edits = now
    return _blocked("its files kept changing while the user reviewed it")


def _pattern(edits: list[FileEdit], root: str) -> str:
    guarded = sorted(e.path for e in edits if _guarded(e.path, root))
    return f"{EDIT_PATTERN}: {', '.join(guarded)}" if guarded else EDIT_PATTERN


def _request(
    tool: str, edits: list[FileEdit], root: str, pattern: str, again: bool
) -> dict[str, Any]:
    """What hermes' approval gate hands ``approvals.ApprovalBridge`` to ask with."""
    verbs = {"added": "create", "updated": "change", "deleted": "delete"}
    shown = [shown_as(e.path, root) for e in edits]
    said = "; ".join(f"{verbs[e.kind]} {s}" for e, s in zip(edits, shown, strict=True))
    return {
        "command": f"{tool} {' '.join(shown)}",
        "description": f"{said} {AGAIN}" if again else said,
        "pattern_key": pattern,
        "pattern_keys": [pattern],
        "allow_permanent": False,
        "edits": encode(edits),
    }


def _blocked(why: str) -> str:
    message = f"BLOCKED: edit not made, {why}. The file was not modified."
    return json.dumps({"error": message}, ensure_ascii=False)


def _refused_by_hermes(file_tools: Any, tool: str, args: dict[str, Any], task: str) -> bool:
    check = getattr(file_tools, "_check_sensitive_path", None)
    path = args.get("path")
    if not callable(check) or not isinstance(path, str) or not path:
        return False  # a V4A patch's paths are checked by the tool, then proposed here
    return check(path, task) is not None


def _guarded(path: str, root: str) -> bool:
    """Whether a ``session`` answer to an edit of the file covers that file only."""
    if {".git", ".ssh"} & set(PurePath(path).parts):
        return True
    inside = os.path.realpath(root)
    if not os.path.isabs(path) or os.path.commonpath([path, inside]) != inside:
        return True  # outside the session's workspace
    try:
        return hidden(path)
    except Exception:
        return True
