"""Child processes: spawn with our own pipes, relay stderr, stop with bounded waits.

Contract:
- ``spawn_child`` starts argv in its own session and process group, with stdin,
  stdout and stderr as pipes to us (never the host's stdio), no other
  inherited fds than ``pass_fds``, and UTF-8 forced regardless of locale.
- ``ChildProcess`` is what the rest of the package needs of a child: a
  ``Popen`` is one, and so is a worker forked by the worker template.
- ``relay_stderr`` copies the child's stderr to ours line by line with a
  prefix, on a daemon thread, until EOF; each line whole (``log``).
- ``stop_child`` escalates: wait for a voluntary exit, close stdin (or call
  ``close_stdin``, for a child whose stdin another object owns), SIGTERM
  the group (then SIGCONT, so that a stopped process gets it too), SIGKILL
  the group; each step has a bounded wait. It returns the exit status and
  never hangs.
- ``exit_status(code)`` splits a return code into an exit code and a signal
  name (one of them None).
- ``proc_stat(pid)``: the fields of its ``/proc/<pid>/stat`` after the
  command name; ``is_stopped(pid)``: whether that process is stopped now (by
  a signal or a debugger), so it cannot read or answer until something
  continues it. False when it cannot tell (no such process, no /proc).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Protocol

from .log import log, log_bytes

if TYPE_CHECKING:  # imported where used: the supervisor answers initialize without it
    import subprocess

UTF8_ENV = {"PYTHONIOENCODING": "utf-8", "PYTHONUTF8": "1"}


class ChildProcess(Protocol):
    @property
    def pid(self) -> int: ...
    @property
    def stdin(self) -> IO[bytes] | None: ...
    @property
    def stdout(self) -> IO[bytes] | None: ...
    @property
    def stderr(self) -> IO[bytes] | None: ...
    def wait(self, timeout: float | None = None) -> int | None: ...


def spawn_child(
    argv: list[str], env: dict[str, str], cwd: str | None = None, pass_fds: tuple[int, ...] = ()
) -> subprocess.Popen[bytes]:
    import subprocess

    env = {**env, **UTF8_ENV}
    return subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        bufsize=0,
        close_fds=True,
        pass_fds=pass_fds,
        start_new_session=True,
    )


def relay_stderr(proc: ChildProcess, prefix: str) -> threading.Thread:
    tag = prefix.encode()

    def run() -> None:
        assert proc.stderr is not None
        for line in iter(proc.stderr.readline, b""):
            log_bytes(tag + line)
        proc.stderr.close()

    thread = threading.Thread(target=run, name=f"stderr{prefix}", daemon=True)
    thread.start()
    return thread


def proc_stat(pid: int) -> list[bytes] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name, from ``state`` on
    (``proc(5)`` field 3 is index 0); None when there is no such file."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    # "pid (comm) state ...": comm may hold spaces and parentheses, so the last ")".
    return stat.rpartition(b")")[2].split()


def is_stopped(pid: int) -> bool:
    fields = proc_stat(pid)
    state = fields[0] if fields else None
    return state in (b"T", b"t")


def _signal_group(proc: ChildProcess, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def stop_child(
    proc: ChildProcess,
    *,
    grace_s: float = 5.0,
    after_stdin_s: float = 2.0,
    after_term_s: float = 3.0,
    close_stdin: Callable[[], object] | None = None,
) -> int | None:
    """Stop ``proc`` and its process group; returns its return code."""
    import subprocess

    steps: list[tuple[float, str]] = [
        (grace_s, "wait"),
        (after_stdin_s, "stdin"),
        (after_term_s, "term"),
    ]
    for timeout, action in steps:
        if action == "stdin":
            with contextlib.suppress(OSError):
                if close_stdin is not None:
                    close_stdin()
                elif proc.stdin is not None:
                    proc.stdin.close()
        elif action == "term":
            _signal_group(proc, signal.SIGTERM)
            # A stopped process (SIGSTOP, a debugger's ^Z) holds SIGTERM until it is
            # continued: it would sit out the whole wait. systemd does the same.
            _signal_group(proc, signal.SIGCONT)
        try:
            code = proc.wait(timeout)
            _signal_group(proc, signal.SIGKILL)  # leftovers of the group, e.g. tool commands
            return code
        except subprocess.TimeoutExpired:
            continue
    _signal_group(proc, signal.SIGKILL)
    try:
        return proc.wait(5.0)
    except subprocess.TimeoutExpired:
        log(f"hermes-stdio: pid {proc.pid} survived SIGKILL")
        return None


def exit_status(code: int | None) -> tuple[int | None, str | None]:
    """A return code as (exit code, signal name): ``-9`` is ``(None, "SIGKILL")``."""
    if code is None or code >= 0:
        return code, None
    try:
        return None, signal.Signals(-code).name
    except ValueError:  # e.g. a real-time signal
        return None, f"SIG{-code}"


WORKER_TAG = "HERMES_STDIO_WORKER_TOKEN"


def kill_tagged(token: str) -> list[int]:
    """SIGKILL every process whose environment carries ``WORKER_TAG=token``.

    Tool commands that hermes-agent starts run in sessions of their own, so a
    worker's process group does not reach them, and once the worker dies they
    are re-parented away from it. They still inherit its environment: the tag
    finds them wherever they went. Linux only (/proc); elsewhere it finds none.
    """
    needle = f"{WORKER_TAG}={token}".encode()
    killed: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return killed
    for entry in entries:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(entry), signal.SIGKILL)
                killed.append(int(entry))
    return killed
