"""Child processes: spawn, relay stderr, stop with escalation; stdio takeover."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

import pytest

from hermes_stdio.transport import relay_stderr, spawn_child, stop_child
from hermes_stdio.transport.process import exit_status, is_stopped

WAIT = 10.0

IGNORE_TERM_AND_STDIN = (
    "import signal, sys, threading\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ready', flush=True)\n"
    "threading.Event().wait()\n"
)
EXIT_ON_STDIN_CLOSE = "import sys\nprint('ready', flush=True)\nsys.stdin.read()\nsys.exit(3)\n"
EXIT_ON_TERM = "import threading\nprint('ready', flush=True)\nthreading.Event().wait()\n"


def spawn(code: str) -> subprocess.Popen[bytes]:
    proc = spawn_child([sys.executable, "-c", code], dict(os.environ))
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], WAIT)
    assert ready, "child did not start"
    assert proc.stdout.readline() == b"ready\n"
    return proc


@pytest.fixture
def children():
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(WAIT)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def test_a_child_that_ignores_sigterm_is_killed_with_sigkill_within_the_bound(children):
    proc = spawn(IGNORE_TERM_AND_STDIN)
    children.append(proc)
    start = time.monotonic()
    code = stop_child(proc, grace_s=0.05, after_stdin_s=0.05, after_term_s=0.2)
    elapsed = time.monotonic() - start
    assert code == -signal.SIGKILL
    assert elapsed < 0.05 + 0.05 + 0.2 + 5.0
    assert elapsed >= 0.05 + 0.05 + 0.2 - 0.01  # every step was waited out


def test_a_child_that_exits_on_stdin_close_stops_at_that_step(children):
    proc = spawn(EXIT_ON_STDIN_CLOSE)
    children.append(proc)
    start = time.monotonic()
    code = stop_child(proc, grace_s=0.05, after_stdin_s=WAIT, after_term_s=WAIT)
    assert code == 3  # not a signal: it stopped once stdin closed
    assert time.monotonic() - start < WAIT


def test_a_child_that_ignores_stdin_is_stopped_by_sigterm(children):
    proc = spawn(EXIT_ON_TERM)
    children.append(proc)
    code = stop_child(proc, grace_s=0.05, after_stdin_s=0.05, after_term_s=WAIT)
    assert code == -signal.SIGTERM


def test_a_child_that_already_exited_returns_its_code_at_once(children):
    proc = spawn("print('ready', flush=True)\nraise SystemExit(7)\n")
    children.append(proc)
    assert proc.wait(WAIT) == 7
    assert stop_child(proc, grace_s=WAIT, after_stdin_s=WAIT, after_term_s=WAIT) == 7


def test_a_spawned_child_leads_its_own_process_group_with_utf8_forced(children):
    code = (
        "import os, sys\n"
        "print('ready', flush=True)\n"
        "print(os.getpgid(0) == os.getpid(), os.environ['PYTHONUTF8'], sys.stdout.encoding,"
        " flush=True)\n"
    )
    proc = spawn(code)
    children.append(proc)
    assert proc.stdout is not None
    out, _ = proc.communicate(timeout=WAIT)
    assert out == b"True 1 utf-8\n"


def test_stderr_is_relayed_line_by_line_with_a_prefix(children, capfd):
    proc = spawn("import sys\nprint('ready', flush=True)\nsys.stderr.write('one\\ntwo')\n")
    children.append(proc)
    thread = relay_stderr(proc, "[w] ")
    thread.join(WAIT)
    assert not thread.is_alive()
    assert capfd.readouterr().err == "[w] one\n[w] two\n"


def test_take_over_stdio_keeps_the_wire_private_and_sends_stdout_to_stderr():
    code = (
        "import os, sys\n"
        "from hermes_stdio.transport import take_over_stdio\n"
        "r, w = take_over_stdio()\n"
        "print('log line')\n"
        "os.write(w, b'WIRE')\n"
        "print(repr(os.read(r, 100)), repr(sys.stdin.read()), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], input=b"host-input", capture_output=True, timeout=WAIT
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"WIRE"
    assert proc.stderr.splitlines() == [b"log line", b"b'host-input' ''"]


def test_the_stdin_step_calls_close_stdin_for_a_child_whose_stdin_another_object_owns(children):
    proc = spawn(EXIT_ON_STDIN_CLOSE)
    children.append(proc)
    assert proc.stdin is not None
    owned = os.dup(proc.stdin.fileno())  # what a peer's writer would own
    proc.stdin.close()  # Popen's copy is gone: only ``owned`` keeps the pipe open
    closed: list[int] = []

    def close_owned() -> None:
        closed.append(owned)
        os.close(owned)

    code = stop_child(
        proc, grace_s=0.05, after_stdin_s=WAIT, after_term_s=WAIT, close_stdin=close_owned
    )
    assert code == 3 and closed == [owned]  # it ended at the stdin step, through the owner


def test_a_stopped_child_is_continued_so_that_it_dies_of_sigterm_not_sigkill(children):
    proc = spawn(EXIT_ON_TERM)
    children.append(proc)
    os.kill(proc.pid, signal.SIGSTOP)
    # Without SIGCONT the signal stays pending for the whole wait, then SIGKILL.
    code = stop_child(proc, grace_s=0.05, after_stdin_s=0.05, after_term_s=WAIT)
    assert code == -signal.SIGTERM


def test_is_stopped_tells_a_stopped_process_from_a_running_or_gone_one(children):
    proc = spawn(EXIT_ON_TERM)
    children.append(proc)
    assert is_stopped(proc.pid) is False
    os.kill(proc.pid, signal.SIGSTOP)
    _, status = os.waitpid(proc.pid, os.WUNTRACED)  # returns once it has stopped
    assert os.WIFSTOPPED(status)
    assert is_stopped(proc.pid) is True
    os.kill(proc.pid, signal.SIGCONT)
    _, status = os.waitpid(proc.pid, os.WCONTINUED)
    assert os.WIFCONTINUED(status)
    assert is_stopped(proc.pid) is False
    proc.kill()
    proc.wait(WAIT)
    assert is_stopped(proc.pid) is False  # reaped: no such process


def test_a_return_code_splits_into_an_exit_code_or_a_signal_name() -> None:
    assert exit_status(0) == (0, None)
    assert exit_status(3) == (3, None)
    assert exit_status(None) == (None, None)
    assert exit_status(-9) == (None, "SIGKILL")
    assert exit_status(-40) == (None, "SIG40")  # a real-time signal has no name
