"""``mcp_watchdog`` run as hermes runs a stdio MCP server's watchdog: real processes,
a parent that dies, signals, stdio passed through."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from types import SimpleNamespace

from hermes_stdio.testing.processes import wait_gone
from hermes_stdio.worker import mcp_watchdog

WATCHDOG = mcp_watchdog.__file__
WAIT_S = 15.0
PRINT_PID_AND_SLEEP = ["sh", "-c", "echo $$; exec sleep 60"]


def gone(pid: int, timeout: float = WAIT_S) -> bool:
    return wait_gone(pid, timeout)


def watchdog(ppid: int, command: list[str], **kwargs: object) -> subprocess.Popen[str]:
    argv = [sys.executable, "-I", WATCHDOG, "--ppid", str(ppid), "--", *command]
    return subprocess.Popen(argv, text=True, **kwargs)  # type: ignore[call-overload]


def test_the_commands_process_group_is_stopped_once_the_parent_is_gone() -> None:
    spawn = (
        "import subprocess, sys, os;"
        f"subprocess.Popen([sys.executable, '-I', {WATCHDOG!r}, '--ppid', str(os.getpid()),"
        f" '--', *{PRINT_PID_AND_SLEEP!r}]);"
        "sys.stdin.read()"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", spawn], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    server = int(parent.stdout.readline())  # the command's stdout is the parent's
    assert not gone(server, 0)
    parent.kill()
    parent.wait(WAIT_S)
    assert gone(server)


def test_it_passes_stdio_through_and_exits_with_the_commands_status() -> None:
    proc = watchdog(
        os.getpid(),
        ["sh", "-c", "read x; echo got $x; exit 7"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    out, _ = proc.communicate("hello\n", timeout=WAIT_S)
    assert (out, proc.returncode) == ("got hello\n", 7)


def test_sigterm_to_it_stops_the_commands_process_group() -> None:
    proc = watchdog(os.getpid(), PRINT_PID_AND_SLEEP, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    server = int(proc.stdout.readline())
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(WAIT_S) == 128 + signal.SIGTERM
    assert gone(server)


def test_a_sigterm_that_comes_while_the_command_starts_still_stops_it() -> None:
    # The signal is sent the moment the command's process exists, before main()
    # goes on: a watchdog that set its handlers only then died of it and left the
    # command running in its own session.
    script = (
        "import os, signal, subprocess, sys\n"
        "from hermes_stdio.worker import mcp_watchdog\n"
        "real = subprocess.Popen\n"
        "def started(*args, **kwargs):\n"
        "    proc = real(*args, **kwargs)\n"
        "    print(proc.pid, flush=True)\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    return proc\n"
        "subprocess.Popen = started\n"
        "sys.exit(mcp_watchdog.main(sys.argv[1:]))\n"
    )
    argv = ["--ppid", str(os.getpid()), "--", "sleep", "60"]
    proc = subprocess.Popen(
        [sys.executable, "-c", script, *argv], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    server = int(proc.stdout.readline())
    assert proc.wait(WAIT_S) == 128 + signal.SIGTERM
    assert gone(server)


def test_a_parent_already_gone_stops_the_command_at_once() -> None:
    dead = subprocess.Popen(["true"])
    dead.wait(WAIT_S)
    proc = watchdog(dead.pid, ["sleep", "60"])
    # The command is stopped before it could say anything, so only the watchdog's end
    # tells: at once, by the command's signal, not after its 60 s.
    assert proc.wait(WAIT_S) != 0


def test_a_bad_command_line_is_refused() -> None:
    proc = watchdog(os.getpid(), [], stderr=subprocess.PIPE)
    _, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 2 and "usage" in err


def test_install_makes_hermes_wrap_stdio_servers_in_it() -> None:
    mcp_tool = SimpleNamespace(_wrap_command_with_watchdog=lambda c, a: (c, a))
    assert mcp_watchdog.install(mcp_tool)
    command, args = mcp_tool._wrap_command_with_watchdog("npx", ["-y", "server"])
    assert (command, args) == (
        sys.executable,
        ["-I", WATCHDOG, "--ppid", str(os.getpid()), "--", "npx", "-y", "server"],
    )
    assert not mcp_watchdog.install(SimpleNamespace())  # hermes without that step
