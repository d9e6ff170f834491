"""What the agent does to a background process stays within its session, and
nothing it types into one reaches the program without the host's answer.

hermes' ``process`` tool writes to a background process's input with no check
at all, and reads, waits on or kills any session's process by id: an agent
could start a harmless shell, then type a dangerous command into it, unasked.
Checking the typed text is not enough: a shell or REPL runs what it makes of
its input (line continuations, line editing keys, history expansion,
aliases), so a harmless-looking line can run anything. Hence every write asks.

Contract:
- ``guard(registry, check, ask, current_key)`` replaces ``write_stdin`` on
  hermes' process registry instance (its ``submit_stdin`` writes through it):
  - only the session that started a process may write to it (``current_key()``,
    the calling turn's session key, must equal the process's
    ``session_key``); otherwise nothing is written and the answer is
    ``{"status": "error"}``;
  - the line being typed (input since the last line end that does not end a
    ``\\`` continuation, plus this data) goes through ``check(line)``, hermes'
    own guard for terminal commands: a flagged line asks the host as any
    flagged command does (and a hard-blocked one is refused);
  - anything else goes through ``ask(line)``: the host is asked whether the
    agent may type it (approval pattern ``process input``, so the host can
    allow it for the rest of the session); a profile whose approvals are
    off, or in YOLO mode, is not asked.
  Unless it is approved, nothing is written and the answer is
  ``{"status": "blocked"}``. A flagged line the host approved starts afresh.
- Calling it again does nothing. Without the registry internals it was written
  against, every write is refused (fail closed) and it returns False.
- ``scope_tool(entry, registry, current_key)`` wraps the ``process`` tool's
  handler (``entry``, hermes' tool-registry entry): an action naming a process
  another session started (``poll``, ``log``, ``wait``, ``kill``, ``close``,
  ``write``, ``submit``) gets a tool error and touches nothing, and ``list``
  shows the session's own processes only. Only the
  agent's tool calls go through it; hermes' own cleanup and the host's
  ``process/*`` methods (scoped by ``background``) do not. Wrapping twice
  wraps once; an entry without a handler is left alone and it returns False.
- ``install(process_registry, terminal_tool, approval, tool_registry)`` does
  both on hermes' own modules with its terminal guard, its approval gate and
  the turn's approval session key.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from typing import Any

Check = Callable[[str], dict[str, Any]]
MAX_LINE = 16 * 1024  # what is kept of an unfinished line
_TARGETED = frozenset({"poll", "log", "wait", "kill", "close", "write", "submit"})
PROCESS_INPUT = "process input"  # the approval pattern for typing into a program


def _unfinished(text: str) -> str:
    """What of ``text`` a shell has not run yet: after the last line end that does
    not close a ``\\`` continuation."""
    end = len(text)
    while True:
        cut = text.rfind("\n", 0, end)
        if cut < 0:
            return text
        if cut == 0 or text[cut - 1] != "\\":
            return text[cut + 1 :]
        end = cut - 1


def _refuse(_process_id: str, _data: object) -> dict[str, Any]:
    return {"status": "error", "error": "writing to a process's input is not available here"}


def guard(
    registry: Any, check: Check | None, ask: Check | None, current_key: Callable[[], str]
) -> bool:
    write = getattr(registry, "write_stdin", None)
    if getattr(write, "guarded", False):
        return True
    get = getattr(registry, "get", None)
    if not callable(write) or not callable(get) or check is None or ask is None:
        registry.write_stdin = _refuse
        return False
    typed: dict[str, str] = {}  # process id -> its unfinished line
    lock = threading.Lock()

    def write_stdin(process_id: str, data: Any) -> dict[str, Any]:
        proc = get(process_id)
        if proc is None:
            return dict(write(process_id, data))  # hermes says it is not found
        if getattr(proc, "session_key", None) != current_key():
            return {"status": "error", "error": f"process {process_id} belongs to another session"}
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
        with lock:
            line = typed.get(process_id, "") + text
        verdict = check(line)
        approved_as_flagged = bool(verdict.get("user_approved"))
        if verdict.get("approved") and not approved_as_flagged:
            verdict = ask(line)  # not flagged, but the program may still run it
        if not verdict.get("approved"):
            why = verdict.get("message") or verdict.get("description") or "input flagged"
            return {"status": "blocked", "error": f"Input denied: {why}"}
        with lock:  # kept even when asked: the next write is checked with it
            rest = "" if approved_as_flagged else line.replace("\r", "\n")
            typed[process_id] = _unfinished(rest)[-MAX_LINE:]
        return dict(write(process_id, data))

    write_stdin.guarded = True  # type: ignore[attr-defined]
    registry.write_stdin = write_stdin
    return True


def scope_tool(entry: Any, registry: Any, current_key: Callable[[], str]) -> bool:
    handler = getattr(entry, "handler", None)
    get = getattr(registry, "get", None)
    if not callable(handler) or not callable(get):
        return False
    if getattr(handler, "scoped", False):
        return True

    def process_tool(args: Any, **kw: Any) -> Any:
        action = args.get("action") if isinstance(args, dict) else None
        process_id = args.get("session_id") if isinstance(args, dict) else None
        if action in _TARGETED and process_id is not None:
            proc = get(str(process_id))
            if proc is not None and getattr(proc, "session_key", None) != current_key():
                return json.dumps({"error": f"process {process_id} belongs to another session"})
        result = handler(args, **kw)
        return _own_only(result, get, current_key()) if action == "list" else result

    process_tool.scoped = True  # type: ignore[attr-defined]
    entry.handler = process_tool
    return True


def _own_only(result: Any, get: Callable[[str], Any], key: str) -> Any:
    """hermes lists by task id too, which can be another session's (every local
    background process is filed under task ``default``): keep the session's own."""
    try:
        listed = json.loads(result)
        processes = listed["processes"]
    except (TypeError, ValueError, KeyError):
        return result
    mine = [
        p
        for p in processes
        if isinstance(p, dict)
        and getattr(get(str(p.get("session_id"))), "session_key", None) == key
    ]
    return json.dumps({**listed, "processes": mine}, ensure_ascii=False)


def install(process_registry: Any, terminal_tool: Any, approval: Any, tool_registry: Any) -> bool:
    guards = getattr(terminal_tool, "_check_all_guards", None)
    current = getattr(approval, "get_current_session_key", None)
    gate = getattr(approval, "_run_approval_gate", None)
    mode = getattr(approval, "_get_approval_mode", None)

    def check(line: str) -> dict[str, Any]:
        assert guards is not None
        return dict(guards(line, os.getenv("TERMINAL_ENV", "local")))

    def ask(line: str) -> dict[str, Any]:
        assert gate is not None and mode is not None
        if str(mode()) == "off":  # the profile chose not to be asked
            return {"approved": True}
        verdict = dict(
            gate(
                pattern_key=PROCESS_INPUT,
                description="typing into a running program, which may run it as a command",
                display_target=line,
                cron_deny_message="BLOCKED: typing into a running program needs approval.",
                autoapprove_log_prefix="process input",
                fail_closed_when_no_human=True,
            )
        )
        return verdict

    def session_key() -> str:
        return str(current(default="")) if callable(current) else ""

    usable = callable(guards) and callable(current)
    asks = callable(gate) and callable(mode)
    registry = process_registry.process_registry
    written = guard(
        registry, check if usable else None, ask if usable and asks else None, session_key
    )
    entry = tool_registry.registry.get_entry("process")
    return scope_tool(entry, registry, session_key) and written
