"""The background processes a session's agent started, through hermes' process
registry (``tools.process_registry.process_registry``, passed in).

Contract: hermes files each background terminal command under the session key
of the turn that started it (``keys.hermes_session_key`` of its id, ``scope``).
``owned(registry, session_id)`` lists that session's processes, running and
recently finished, with the end of their output; ``kill(registry, session_id,
process_id)`` kills one of them and says whether it did: a process of another
session, or one that already exited, is left alone. ``working(registry,
delegations, session_ids)`` is the sessions among ``session_ids`` whose
background work goes on: a process still running, or a subagent of an async
``delegate_task`` (``delegations``: hermes' ``list_async_delegations()``)
still at work. ``ending(registry, delegation, session_id)``, as the host
deletes a session: interrupts its subagents still at work through hermes'
``async_delegation`` (``delegation``, or None before it is imported), as hermes
does when a session ends, kills its processes still running, and returns the
ids of both. ``subagents(delegation, session_id)`` lists the session's
subagents, running and recently finished (the last 50 of the worker hermes
keeps), from ``delegation.list_async_delegations()``;
``interrupt_subagents(delegation, session_id)`` tells those still at work to
stop and says how many it told (each still reports when it ends).
``completion_of(proc, strip)`` is the completion event hermes would have queued
for a process (see ``watches.ProcessWatch``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..protocol.processes import ProcessInfo, SubagentInfo, SubagentProgress
from .keys import hermes_session_key

TAIL_CHARS = 4000


def _mine(registry: Any, session_id: str, process_id: str) -> Any:
    proc = registry.get(process_id)
    key = hermes_session_key(session_id)
    return proc if proc is not None and getattr(proc, "session_key", "") == key else None


def owned(registry: Any, session_id: str) -> list[ProcessInfo]:
    # list_sessions refreshes what it lists (a detached process that has gone).
    listed = registry.list_sessions(session_key=hermes_session_key(session_id))
    procs = (_mine(registry, session_id, str(e.get("session_id") or "")) for e in listed)
    return [info_of(proc) for proc in procs if proc is not None]


def kill(registry: Any, session_id: str, process_id: str) -> bool:
    proc = _mine(registry, session_id, process_id)
    if proc is None or getattr(proc, "exited", False):
        return False
    return bool(registry.kill_process(process_id).get("status") == "killed")


def working(registry: Any, delegations: list[dict[str, Any]], session_ids: list[str]) -> set[str]:
    keys = {hermes_session_key(sid): sid for sid in session_ids}
    busy = {sid for key, sid in keys.items() if registry.has_active_for_session(key)}
    for record in delegations:
        key = record.get("session_key")
        if record.get("status") in ("running", "finalizing") and key in keys:
            busy.add(keys[key])
    return busy


def ending(registry: Any, delegation: Any, session_id: str) -> list[str]:
    stopped = _running_subagents(delegation, session_id)
    if stopped:
        key = hermes_session_key(session_id)
        delegation.interrupt_for_session(session_key=key, reason="session_end")
    running = [p.process_id for p in owned(registry, session_id) if p.status == "running"]
    return stopped + [pid for pid in running if kill(registry, session_id, pid)]


def _records(delegation: Any, session_id: str) -> list[dict[str, Any]]:
    if delegation is None:
        return []
    key = hermes_session_key(session_id)
    return [r for r in delegation.list_async_delegations() if r.get("session_key") == key]


def _running_subagents(delegation: Any, session_id: str) -> list[str]:
    records = _records(delegation, session_id)
    return [str(r.get("delegation_id")) for r in records if r.get("status") == "running"]


def _ms(seconds: Any) -> int | None:
    return int(seconds * 1000) if isinstance(seconds, (int, float)) else None


def subagents(delegation: Any, session_id: str) -> list[SubagentInfo]:
    found = [subagent_of(record) for record in _records(delegation, session_id)]
    return sorted(found, key=lambda s: s.dispatched_at)


def subagent_of(record: dict[str, Any]) -> SubagentInfo:
    """A subagent as hermes' ``async_delegation`` records it (or its completion event)."""
    status = str(record.get("status") or "")
    status = "running" if status in ("running", "finalizing") else status  # not reported yet
    model = record.get("model")
    return SubagentInfo(
        subagent_id=str(record.get("delegation_id") or ""),
        goal=str(record.get("goal") or "")[:200],
        status=status,
        model=model if isinstance(model, str) and model else None,
        dispatched_at=_ms(record.get("dispatched_at")) or 0,
        completed_at=None if status == "running" else _ms(record.get("completed_at")),
    )


def completion_of(proc: Any, strip: Callable[[str], str]) -> dict[str, Any]:
    """The event hermes' registry queues when a process marked ``notify_on_complete``
    ends (its ``_move_to_finished``), made for one that ended before it was marked;
    ``strip`` is hermes' ``strip_ansi``."""
    tail = str(getattr(proc, "output_buffer", "") or "")[-2000:]
    return {
        "type": "completion",
        "session_id": proc.id,
        "session_key": getattr(proc, "session_key", ""),
        "command": getattr(proc, "command", ""),
        "exit_code": getattr(proc, "exit_code", None),
        "completion_reason": getattr(proc, "completion_reason", None),
        "termination_source": getattr(proc, "termination_source", None),
        "output": strip(tail) if tail else "",
        "started_at": getattr(proc, "started_at", None),
    }


def _text(value: Any) -> str | None:
    return None if value is None else str(value)[:TAIL_CHARS]


def progress_of(kind: str, name: Any, preview: Any, identity: dict[str, Any]) -> SubagentProgress:
    """What a subagent did, as hermes relays it to its parent's progress callback."""

    def number(key: str) -> int | None:
        value = identity.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    duration = identity.get("duration_seconds")
    status = identity.get("status")
    return SubagentProgress(
        kind=kind,
        name=_text(name) or None,
        preview=_text(preview),
        child_id=_text(identity.get("subagent_id")) or None,
        parent_child_id=_text(identity.get("parent_id")) or None,
        depth=number("depth") or 0,
        task_index=number("task_index") or 0,
        task_count=number("task_count") or 1,
        tool_count=number("tool_count"),
        child_session_id=_text(identity.get("child_session_id")) or None,
        status=str(status) if status and kind == "subagent.complete" else None,
        duration_s=float(duration) if isinstance(duration, (int, float)) else None,
    )


def interrupt_subagents(delegation: Any, session_id: str) -> int:
    if not _running_subagents(delegation, session_id):
        return 0
    key = hermes_session_key(session_id)
    return int(delegation.interrupt_for_session(session_key=key, reason="host_interrupt"))


def info_of(proc: Any) -> ProcessInfo:
    """A process as hermes' registry holds it (its ``ProcessSession``)."""
    exit_code, pid, cwd = getattr(proc, "exit_code", None), getattr(proc, "pid", None), proc.cwd
    started = getattr(proc, "started_at", None)
    return ProcessInfo(
        process_id=str(proc.id),
        command=str(getattr(proc, "command", "") or "")[:200],
        cwd=str(cwd) if cwd else None,
        pid=pid if isinstance(pid, int) else None,
        status="exited" if getattr(proc, "exited", False) else "running",
        exit_code=exit_code if isinstance(exit_code, int) else None,
        uptime_s=int(time.time() - started) if isinstance(started, (int, float)) else 0,
        output_tail=str(getattr(proc, "output_buffer", "") or "")[-TAIL_CHARS:],
    )
