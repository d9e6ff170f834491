"""A shell hook runs in its session's directory, and stops when its turn is interrupted.

hermes runs a profile's shell hook (``shell_hooks._spawn``) with
``subprocess.run`` in the process's directory (in its CLI, the user's project;
in a worker, the profile's home) and waits up to the hook's ``timeout`` (60 s
by default, at most 300 s); an interrupt waits as long, so ``run/interrupt`` of
a turn held by a slow hook did not end the run until the hook did.

Contract: ``install(shell_hooks, interrupt, run_agent, where)`` (hermes'
``agent.shell_hooks``, ``tools.interrupt`` and ``run_agent`` modules; ``where()``
the calling session's directory), once per worker process, replaces hermes'
hook runner with one that gives hermes the same result (exit code, output;
``timed_out`` once the hook's timeout passed, its process killed) but for
this. The hook runs in ``where()`` when that is a directory here (so a relative
hook command, and what it runs, are found in the session's project, as in
hermes' CLI), else in the process's. Once hermes interrupts the thread the hook
runs on (its per-thread ``set_interrupt``, which it sets for a turn's thread
and for its tool threads), or had already, the hook's process group is stopped
as ``transport.stop_child`` stops a child (SIGTERM with SIGCONT, SIGKILL after
``GRACE_S``; what is left of the group once the hook exits is killed), the hook
is reaped, and it exits 130 (hermes' code for an interrupted command). An
interrupted ``pre_tool_call`` hook blocks its tool call (``INTERRUPTED``: its
verdict is unknown, and the turn is ending); any other says nothing. Each hook
runs in a process group of its own. The hook's thread waits on an event:
nothing polls. It returns False, changing nothing, when hermes lacks one of
those functions.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

from ..transport.log import log
from ..transport.process import stop_child

_MARK = "_hermes_stdio_hook_runner"
GRACE_S = 1.0
INTERRUPTED = "Interrupted before the hook answered."
_EXIT = 130

_lock = threading.Lock()
_waiting: dict[int, threading.Event] = {}  # by thread ident: the hook it runs


def install(shell_hooks: Any, interrupt: Any, run_agent: Any, where: Callable[[], Any]) -> bool:
    spawn: Any = getattr(shell_hooks, "_spawn", None)
    setter: Any = getattr(interrupt, "set_interrupt", None)
    asked: Any = getattr(interrupt, "is_interrupted", None)
    alias: Any = getattr(run_agent, "_set_interrupt", None)  # run_agent's own import of it
    if not all(callable(f) for f in (spawn, setter, asked, alias)):
        log("worker: hermes' shell hooks changed: an interrupt waits for a running hook")
        return False
    if getattr(spawn, _MARK, False):
        return True
    interrupt.set_interrupt = _telling(setter)
    run_agent._set_interrupt = _telling(alias)
    runner = functools.partial(_spawn, asked, where)
    setattr(runner, _MARK, True)
    shell_hooks._spawn = runner
    return True


def _telling(set_interrupt: Callable[..., None]) -> Any:
    if getattr(set_interrupt, _MARK, False):
        return set_interrupt

    @functools.wraps(set_interrupt)
    def told(active: bool, thread_id: int | None = None) -> None:
        set_interrupt(active, thread_id)
        if active:
            with _lock:
                woken = _waiting.get(threading.get_ident() if thread_id is None else thread_id)
            if woken is not None:
                woken.set()

    setattr(told, _MARK, True)
    return told


def _spawn(
    asked: Callable[[], bool], where: Callable[[], Any], spec: Any, stdin_json: str
) -> dict[str, Any]:
    """hermes' ``_spawn(spec, stdin_json)``, interruptible; its result's keys."""
    result: dict[str, Any] = {
        "returncode": None,
        "stdout": "",
        "stderr": "",
        "timed_out": False,
        "elapsed_seconds": 0.0,
        "error": None,
    }
    try:
        argv = shlex.split(os.path.expanduser(spec.command))
    except ValueError as exc:
        result["error"] = f"command {spec.command!r} cannot be parsed: {exc}"
        return result
    if not argv:
        result["error"] = "empty command"
        return result
    me, woken = threading.get_ident(), threading.Event()
    with _lock:
        _waiting[me] = woken
    began = time.monotonic()
    try:
        if asked():
            return _interrupted(spec, result, "")
        return _run(spec, argv, _directory(where), stdin_json, woken, result)
    finally:
        with _lock:
            _waiting.pop(me, None)
        result["elapsed_seconds"] = round(time.monotonic() - began, 3)


def _directory(where: Callable[[], Any]) -> str | None:
    try:
        found = str(where())
    except Exception:  # hermes' lookup failed: the process's, as hermes would
        return None
    return found if os.path.isdir(found) else None  # a sandbox's path, say


def _run(
    spec: Any,
    argv: list[str],
    cwd: str | None,
    stdin_json: str,
    woken: threading.Event,
    result: dict[str, Any],
) -> dict[str, Any]:
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            process_group=0,
        )
    except FileNotFoundError:
        result["error"] = "command not found"
        return result
    except PermissionError:
        result["error"] = "command not executable"
        return result
    except Exception as exc:
        result["error"] = str(exc)
        return result
    got: dict[str, Any] = {}

    def talk() -> None:
        try:
            out, err = proc.communicate(stdin_json.encode(), timeout=spec.timeout)
            got["streams"] = (_text(out), _text(err))
        except subprocess.TimeoutExpired:
            got["timed_out"] = True
            _signal(proc, signal.SIGKILL)  # as subprocess.run does, for its group
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.communicate(timeout=GRACE_S)
        except Exception as exc:  # its pipes broke: hermes' defensive case
            got["error"] = str(exc)
        finally:
            woken.set()

    talking = threading.Thread(target=talk, name="shell-hook", daemon=True)
    talking.start()
    woken.wait()  # the hook's end (at most its timeout) or an interrupt
    if got:
        talking.join()  # it has finished talking
        if "streams" in got:
            out, err = got["streams"]
            result.update(returncode=proc.returncode, stdout=out or "", stderr=err or "")
        result.update(timed_out=got.get("timed_out", False), error=got.get("error"))
        return result
    # ``talk`` owns its stdin: the stop goes straight to SIGTERM, then SIGKILL.
    stop_child(proc, grace_s=0.0, after_stdin_s=0.0, after_term_s=GRACE_S, close_stdin=_nothing)
    talking.join(GRACE_S)  # a process outside its group may hold its pipes
    streams = got.get("streams") or ("", "")
    return _interrupted(spec, result, streams[1] or "")


def _nothing() -> None:
    pass


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "replace")


def _signal(proc: subprocess.Popen[bytes], sig: int) -> None:
    if proc.returncode is not None:  # reaped: its group id may be another's by now
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def _interrupted(spec: Any, result: dict[str, Any], stderr: str) -> dict[str, Any]:
    result.update(returncode=_EXIT, stderr=stderr)
    if spec.event == "pre_tool_call":  # hermes reads this as a block
        result["stdout"] = json.dumps({"action": "block", "message": INTERRUPTED})
    return result
