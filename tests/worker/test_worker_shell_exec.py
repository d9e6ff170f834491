"""shell_exec.Command: a host's command spawned, read, bounded and ended, with real
processes and pipes."""

from __future__ import annotations

import os
import selectors
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.testing.processes import wait_gone
from hermes_stdio.worker import shell_exec
from hermes_stdio.worker.shell_exec import Command

ENV = dict(os.environ)


def gone(pid: int, timeout: float = 10.0) -> bool:
    return wait_gone(pid, timeout)


def test_a_command_gives_its_exit_code_and_its_two_outputs_apart(tmp_path: Path) -> None:
    done = Command(["bash", "-c", "pwd; echo err >&2; exit 3"]).run(str(tmp_path), ENV, 10)
    assert (done.returncode, done.stdout, done.stderr) == (3, f"{tmp_path}\n", "err\n")
    assert not (done.timed_out or done.cancelled or done.truncated)
    assert done.duration_s >= 0


def test_it_runs_with_the_given_environment_and_no_stdin_of_ours(tmp_path: Path) -> None:
    env = {"PATH": os.environ["PATH"], "ONLY": "this"}
    done = Command(["bash", "-c", 'echo "$ONLY ${HOME-unset}"; cat']).run(str(tmp_path), env, 10)
    assert done.stdout == "this unset\n"  # cat read /dev/null: at once EOF


def test_what_it_leaves_running_in_its_group_is_killed_when_it_exits(tmp_path: Path) -> None:
    done = Command(["bash", "-c", "sleep 60 & echo $!"]).run(str(tmp_path), ENV, 10)
    assert done.returncode == 0 and done.duration_s < 5
    assert gone(int(done.stdout))


def test_a_process_that_left_the_group_holding_the_pipes_is_waited_for_only_briefly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shell_exec, "DRAIN_S", 0.2)
    script = "setsid sleep 30 & echo $!"
    done = Command(["bash", "-c", script]).run(str(tmp_path), ENV, 10)
    try:
        assert done.returncode == 0 and done.duration_s < 5
    finally:
        os.kill(int(done.stdout), 9)


def test_past_its_timeout_it_gets_sigterm(tmp_path: Path) -> None:
    done = Command(["sleep", "30"]).run(str(tmp_path), ENV, 0.2)
    assert done.timed_out and not done.cancelled
    assert done.returncode == -15


def test_one_that_ignores_sigterm_gets_sigkill_after_the_grace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shell_exec, "KILL_GRACE_S", 0.3)
    ready = tmp_path / "ready"
    script = f"trap '' TERM; touch {ready}; sleep 30"
    done = Command(["bash", "-c", script]).run(str(tmp_path), ENV, 0.5)
    assert ready.exists() and done.timed_out
    assert done.returncode == -9


def test_cancel_from_another_thread_ends_it_and_says_so(tmp_path: Path) -> None:
    started = threading.Event()
    command = Command(["bash", "-c", "echo up; exec sleep 30"], lambda _s, _t: started.set())
    threading.Thread(target=lambda: started.wait(10) and command.cancel()).start()
    done = command.run(str(tmp_path), ENV, 20)
    assert done.cancelled and not done.timed_out
    assert done.returncode == -15 and done.duration_s < 10


def test_with_no_time_limit_it_runs_until_cancelled(tmp_path: Path) -> None:
    started = threading.Event()
    command = Command(["bash", "-c", "echo up; exec sleep 30"], lambda _s, _t: started.set())
    threading.Thread(target=lambda: started.wait(10) and command.cancel()).start()
    done = command.run(str(tmp_path), ENV, None)
    assert done.cancelled and not done.timed_out
    assert done.returncode == -15 and done.duration_s < 10


def test_a_command_cancelled_before_it_runs_is_never_spawned(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    command = Command(["touch", str(marker)])
    command.cancel()
    done = command.run(str(tmp_path), ENV, 10)
    assert done.cancelled and done.returncode is None
    assert not marker.exists()


def test_cancel_after_the_end_touches_nothing(tmp_path: Path) -> None:
    command = Command(["true"])
    assert command.run(str(tmp_path), ENV, 10).returncode == 0
    reused_r, reused_w = os.pipe()  # may take the numbers the command's wake pipe had
    try:
        command.cancel()
        os.set_blocking(reused_r, False)
        with pytest.raises(BlockingIOError):
            os.read(reused_r, 1)
    finally:
        os.close(reused_r)
        os.close(reused_w)


def test_a_program_that_cannot_start_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Command([str(tmp_path / "nope")]).run(str(tmp_path), ENV, 10)


def test_the_end_of_a_long_output_is_kept_from_a_whole_character(tmp_path: Path) -> None:
    code = "import sys; sys.stdout.write('ab' + 'é' * 5000); sys.stderr.write('short')"
    done = Command([sys.executable, "-c", code], keep=9).run(str(tmp_path), ENV, 10)
    assert done.truncated
    assert done.stdout == "éééé"  # 9 bytes from the end start mid-character: 8 whole
    assert done.stderr == "short"


def test_streamed_output_comes_in_order_and_never_splits_a_character(tmp_path: Path) -> None:
    go = tmp_path / "go"
    code = (
        "import os, sys, time\n"
        "os.write(1, b'a\\xc3')\n"
        f"deadline = time.time() + 10\n"
        f"while not os.path.exists({str(go)!r}) and time.time() < deadline: time.sleep(0.01)\n"
        "os.write(1, b'\\xa9b')\n"
        "os.write(2, b'\\xff')\n"
    )
    pieces: list[tuple[str, str]] = []

    def seen(stream: str, text: str) -> None:
        pieces.append((stream, text))
        go.touch()

    done = Command([sys.executable, "-c", code], seen).run(str(tmp_path), ENV, 20)
    assert done.returncode == 0 and (done.stdout, done.stderr) == ("", "")
    assert [t for s, t in pieces if s == "stdout"] == ["a", "éb"]
    assert [t for s, t in pieces if s == "stderr"] == ["\ufffd"]


def test_no_descriptor_is_left_open(tmp_path: Path) -> None:
    before = set(os.listdir("/proc/self/fd"))
    for argv in (["true"], ["bash", "-c", "sleep 30 & echo x"]):
        Command(argv).run(str(tmp_path), ENV, 10)
    Command(["cat"], stdin=b"fed").run(str(tmp_path), ENV, 10)
    Command(["true"], stdin=b"x" * 1_000_000).run(str(tmp_path), ENV, 10)
    command = Command(["true"])
    command.cancel()
    command.run(str(tmp_path), ENV, 10)
    assert set(os.listdir("/proc/self/fd")) == before


def test_stdin_is_fed_whole_as_the_program_takes_it_then_closed(tmp_path: Path) -> None:
    data = ("é" * 700_000).encode()  # 1.4 MB: many times a pipe's buffer
    code = "import sys; d = sys.stdin.buffer.read(); sys.stdout.write(str(len(d)))"
    done = Command([sys.executable, "-c", code], stdin=data).run(str(tmp_path), ENV, 20)
    assert (done.returncode, done.stdout) == (0, str(len(data)))


def test_a_program_that_takes_none_of_its_stdin_neither_hangs_nor_fails(tmp_path: Path) -> None:
    for script in ("exit 0", "exec 0<&-; sleep 0.2; echo closed", "head -c 1 >/dev/null; echo one"):
        done = Command(["bash", "-c", script], stdin=b"x" * 2_000_000).run(str(tmp_path), ENV, 20)
        assert done.returncode == 0 and not done.timed_out, script


def test_stdin_left_when_the_program_exits_is_dropped_whatever_order_the_events_come_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class ExitSeenFirst(selectors.DefaultSelector):
        """Lets everything become ready, then reports stdin's event after the rest."""

        def select(self, timeout: float | None = None) -> Any:
            time.sleep(0.05)  # not a wait for the test: a batch with every event in it
            events = super().select(timeout)
            return sorted(events, key=lambda e: bool(e[1] & selectors.EVENT_WRITE))

    monkeypatch.setattr(selectors, "DefaultSelector", ExitSeenFirst)
    script = "exec 0<&-; echo bye"
    done = Command(["bash", "-c", script], stdin=b"x" * 2_000_000).run(str(tmp_path), ENV, 20)
    assert (done.returncode, done.stdout) == (0, "bye\n")
