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
ids of both.
"""

from __future__ import annotations

from typing import Any

from ..protocol.processes import ProcessInfo
from .keys import hermes_session_key

TAIL_CHARS = 4000


def _mine(registry: Any, session_id: str, process_id: str) -> Any:
    proc = registry.get(process_id)
    key = hermes_session_key(session_id)
    return proc if proc is not None and getattr(proc, "session_key", "") == key else None


def owned(registry: Any, session_id: str) -> list[ProcessInfo]:
    found = []
    for entry in registry.list_sessions(session_key=hermes_session_key(session_id)):
        proc = _mine(registry, session_id, str(entry.get("session_id") or ""))
        if proc is None:
            continue
        exit_code = entry.get("exit_code")
        found.append(
            ProcessInfo(
                process_id=str(entry["session_id"]),
                command=str(entry.get("command") or ""),
                cwd=str(entry["cwd"]) if entry.get("cwd") else None,
                pid=entry.get("pid") if isinstance(entry.get("pid"), int) else None,
                status="exited" if entry.get("status") == "exited" else "running",
                exit_code=exit_code if isinstance(exit_code, int) else None,
                uptime_s=int(entry.get("uptime_seconds") or 0),
                output_tail=str(getattr(proc, "output_buffer", "") or "")[-TAIL_CHARS:],
            )
        )
    return found


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
    key = hermes_session_key(session_id)
    records = delegation.list_async_delegations() if delegation is not None else []
    subagents = [
        str(record.get("delegation_id"))
        for record in records
        if record.get("session_key") == key and record.get("status") == "running"
    ]
    if subagents:
        delegation.interrupt_for_session(session_key=key, reason="session_end")
    running = [p.process_id for p in owned(registry, session_id) if p.status == "running"]
    return subagents + [pid for pid in running if kill(registry, session_id, pid)]
