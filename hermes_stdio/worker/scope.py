"""What hermes reads from the thread a session's turn runs on.

Contract: ``session_scope(session, hermes, approvals, sudo)`` is a context manager
for the run's thread around a turn (``hermes`` holds hermes-agent's
``approval``, ``session_context``, ``runtime_cwd`` and ``terminal_tool``
modules, passed in by the adapter). Inside it, hermes' approval session key is
``keys.hermes_session_key`` of the session's id (so one session's "session"
approval never covers another's command) and the session's approval requests
go to its current run (through ``approvals``, when the bridge is installed);
hermes' per-thread session context carries the session's id, profile, source and
workspace, a workspace is the session's working directory for its tools and the
one its agent's system prompt names and takes context from (without one, the
worker's: ``terminal_dir.current()``, whatever ``TERMINAL_CWD`` a cron job set
meanwhile; left to hermes for a backend that is not local; where the session's
commands ``cd``-ed to is kept from turn to turn while that directory stays the
same and the one it ``cd``-ed to exists, and a new one starts them there), and
``sudo`` (if
given) is hermes' sudo password callback for the thread. On the way out all of
it is undone, which also releases an approval still waiting (hermes then
refuses the command).

hermes also keeps a session's state process-wide under its id, beyond any turn:
its "session" approvals and YOLO switch, its cached sudo password, its working
directory (the workspace override and where its commands ``cd``-ed to) and which
files it has read (so an unchanged file is not read again, and a fourth read in a
row of one is refused). On the way in, when
``session.forget_hermes`` is set (a session object new to this worker, or one
``session/delete`` emptied), all of that is dropped first, as hermes' gateway
does at a session boundary: a new conversation under an old id, or one loaded
afresh, starts with none of it. When only ``session.forget_reads`` is set (its
history was replaced), only the record of its reads goes. Both flags are then
cleared. ``forget_session(session_id, hermes)`` drops all of it outside a turn,
for a session the worker unloaded, destroyed or deleted (on a thread that is in
no turn: it sets, then clears, that thread's session context). hermes' private
helpers are optional: without one, its part is kept.
hermes' per-session YOLO switch follows ``session.auto_approve`` (run/start's or
session/autoApprove's) while one of the session's turns is inside the scope, and
is off otherwise. ``set_auto_approve(session, enabled, approval)`` changes the
setting, and the switch at once when a turn is inside (``approval``: hermes'
module, None when no turn ever imported it); it and the scope's way in and out
take one lock, so the switch always ends as the last of them left it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from . import terminal_dir
from .approvals import ApprovalBridge
from .keys import PLATFORM, hermes_session_key
from .state import Session


@dataclass(frozen=True)
class TurnModules:
    approval: Any
    session_context: Any
    runtime_cwd: Any
    terminal_tool: Any
    file_tools: Any


@contextmanager
def session_scope(
    session: Session,
    hermes: TurnModules,
    approvals: ApprovalBridge | None,
    sudo: Callable[[], str] | None = None,
) -> Iterator[None]:
    sid, workspace = session.session_id, session.workspace
    forget_all, forget_reads = session.forget_hermes, session.forget_reads
    session.forget_hermes = session.forget_reads = False
    if forget_all:
        _forget_kept(sid, hermes)
    if forget_all or forget_reads:
        _forget_reads(sid, hermes)
    key_token = hermes.approval.set_current_session_key(hermes_session_key(sid))

    def emit(method: str, payload: dict[str, Any]) -> object:
        run = session.run
        return run.emit(method, payload) if run is not None else False

    if approvals is not None:
        approvals.open(sid, emit)
    context_tokens = hermes.session_context.set_session_vars(
        platform=PLATFORM,
        source=session.source or "",
        session_id=sid,
        session_key=hermes_session_key(sid),
        profile=session.profile,
        cwd=workspace or "",
    )
    if forget_all:  # hermes files it under the session context's key, set just above
        _call(hermes.terminal_tool, "_set_cached_sudo_password", "")
    # Without one, the worker's: never the TERMINAL_CWD that a cron job with a
    # workdir sets for the whole process while hermes runs it. A sandboxed backend's
    # directory is its own: hermes picks it.
    if workspace or terminal_dir.local():
        where = workspace or terminal_dir.current()
        hermes.runtime_cwd.set_session_cwd(where)
        _register_cwd(session, where, hermes.terminal_tool)
    if sudo is not None:
        hermes.terminal_tool.set_sudo_password_callback(sudo)
    _enter_turn(session, hermes.approval)  # last: nothing that fails before the try leaves it on
    try:
        yield
    finally:
        if sudo is not None:
            hermes.terminal_tool.set_sudo_password_callback(None)
        if approvals is not None:
            approvals.close(sid)  # releases any waiter: blocked
        hermes.session_context.clear_session_vars(context_tokens)
        hermes.runtime_cwd.clear_session_cwd()
        hermes.approval.reset_current_session_key(key_token)
        _leave_turn(session, hermes.approval)


def _register_cwd(session: Session, where: str, terminal_tool: Any) -> None:
    # What hermes registers is where the session's commands start, and where its
    # file tools resolve a relative path (it moves the shared shell there): in the
    # same directory as its last turn, where that turn's cd left it, while it exists.
    sid = session.session_id
    get: Any = getattr(terminal_tool, "get_session_cwd", None)
    kept = get(sid) if callable(get) and session.cwd_registered == where else None
    if kept and terminal_dir.local() and not os.path.isdir(kept):
        kept = None
    terminal_tool.register_task_env_overrides(sid, {"cwd": kept or where})
    session.cwd_registered = where


_yolo_lock = threading.Lock()


def _yolo(approval: Any, session: Session, on: bool) -> None:
    name = "enable_session_yolo" if on else "disable_session_yolo"
    _call(approval, name, hermes_session_key(session.session_id))


def _enter_turn(session: Session, approval: Any) -> None:
    with _yolo_lock:
        session.turns_inside += 1
        _yolo(approval, session, session.auto_approve)


def _leave_turn(session: Session, approval: Any) -> None:
    with _yolo_lock:
        session.turns_inside -= 1
        if not session.turns_inside:  # only for its turns: nothing else of it runs with it on
            _yolo(approval, session, False)


def set_auto_approve(session: Session, enabled: bool, approval: Any) -> None:
    with _yolo_lock:
        session.auto_approve = enabled
        if session.turns_inside and approval is not None:
            _yolo(approval, session, enabled)


def forget_session(session_id: str, hermes: TurnModules) -> None:
    """Drop what hermes keeps under a session's id, as a forgetting turn does on its
    way in, for a session the worker let go of: its cached sudo password does not
    wait in memory for the session's next load, which may never come."""
    _forget_kept(session_id, hermes)
    _forget_reads(session_id, hermes)
    # hermes files the password under the session context's key: set it for the call
    tokens = hermes.session_context.set_session_vars(
        platform=PLATFORM, session_id=session_id, session_key=hermes_session_key(session_id)
    )
    try:
        _call(hermes.terminal_tool, "_set_cached_sudo_password", "")
    finally:
        hermes.session_context.clear_session_vars(tokens)


def _forget_kept(sid: str, hermes: TurnModules) -> None:
    _call(hermes.approval, "clear_session", hermes_session_key(sid))
    _call(hermes.terminal_tool, "clear_task_env_overrides", sid)
    # where its commands last finished: filed under the session key, not the task id
    _call(hermes.terminal_tool, "clear_session_cwd", hermes_session_key(sid))


def _forget_reads(sid: str, hermes: TurnModules) -> None:
    _call(hermes.file_tools, "reset_file_dedup", sid)
    # and its count of repeated reads, which blocks the 4th as "already in your
    # context": what those reads returned is not in it any more
    _call(hermes.file_tools, "notify_other_tool_call", sid)


def _call(module: Any, name: str, *args: Any) -> None:
    helper = getattr(module, name, None)
    if callable(helper):
        helper(*args)
