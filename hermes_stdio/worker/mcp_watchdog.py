"""A stdio MCP server's parent-death watchdog that waits instead of polling.

hermes wraps each stdio MCP server's command in a watchdog process of its own
(``tools/mcp_stdio_watchdog.py``) so that a server outlives no hermes process
killed hard; that watchdog checks ``getppid()`` every 2 s, a wake-up every 2 s
per server for as long as the worker lives. This one does the same job with
no wake-up: it blocks in ``poll`` on a pidfd of the parent (Linux 5.3+).

Contract:
- As a script (``python -I mcp_watchdog.py --ppid PID -- COMMAND ARGS...``, no
  import beyond the standard library): it starts the command in a session of
  its own with the same stdio (the MCP stream passes straight through) and
  exits with its status once it exits. When process ``PID`` (the worker) is
  gone, or already was, it stops the command's process group (SIGTERM, 3 s,
  SIGKILL) and exits; SIGTERM or SIGINT to it does the same (what hermes'
  closing of its servers sends). Where there are no pidfds it checks
  ``getppid()`` every 2 s, as hermes' does.
- ``install(mcp_tool)``: hermes' ``tools.mcp_tool`` wraps stdio servers in this
  watchdog from now on (False, changing nothing, where hermes' wrapping step is
  missing or there are no pidfds).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
from typing import Any

GRACE_S = 3.0  # as hermes' watchdog
POLL_S = 2.0  # only where there are no pidfds


def install(mcp_tool: Any) -> bool:
    if os.name != "posix" or not hasattr(os, "pidfd_open"):
        return False
    if not callable(getattr(mcp_tool, "_wrap_command_with_watchdog", None)):
        return False

    def wrap(command: str, args: list[str]) -> tuple[str, list[str]]:
        ours = [os.path.abspath(__file__), "--ppid", str(os.getpid()), "--", command]
        return sys.executable, ["-I", *ours, *args]

    mcp_tool._wrap_command_with_watchdog = wrap
    return True


def _stop(proc: subprocess.Popen[bytes], ended: threading.Event) -> None:
    """SIGTERM to the command's process group, SIGKILL if it lives on ``GRACE_S``."""
    try:
        group = os.getpgid(proc.pid)
    except OSError:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(group, sig)
        except OSError:
            return
        if ended.wait(GRACE_S):
            return


def _await_parent(ppid: int) -> None:
    """Return once process ``ppid`` is gone (at once if it already is)."""
    try:
        fd = os.pidfd_open(ppid)
    except OSError:  # gone already, or no pidfds: then getppid tells
        fd = -1
    if os.getppid() != ppid:  # it died before we looked
        return
    if fd < 0:
        while os.getppid() == ppid:
            threading.Event().wait(POLL_S)
        return
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while not poller.poll():
        pass


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[0] != "--ppid" or argv[2] != "--":
        print("usage: mcp_watchdog.py --ppid PID -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    ppid = int(argv[1])
    ended = threading.Event()  # set once the command has exited (only main waits on it)
    signalled: list[int] = []
    started: list[subprocess.Popen[bytes]] = []

    def stop() -> None:
        for proc in started:
            threading.Thread(target=_stop, args=(proc, ended), daemon=True).start()

    def on_signal(signum: int, _frame: object) -> None:
        signalled.append(signum)
        stop()

    # Before the command starts: a signal's default action would end us and leave
    # it running, in a session of its own, with nobody to stop it.
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    proc = subprocess.Popen(argv[3:], start_new_session=True)
    started.append(proc)
    if signalled:  # it came while the command was starting
        stop()

    def watch() -> None:
        _await_parent(ppid)
        stop()

    threading.Thread(target=watch, name="parent", daemon=True).start()
    code = proc.wait()
    ended.set()
    return 128 + signalled[0] if signalled else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
