"""shell_exec.Command with live input and in a terminal: what shell/write and
shell/resize drive, with real processes, pipes and pseudo-terminals."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from hermes_stdio.worker import shell_exec
from hermes_stdio.worker.shell_exec import Command, Outcome

ENV = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8"}


class Running:
    """A command run on its own thread, its streamed output collected."""

    def __init__(self, argv: list[str], tmp_path: Path, timeout: float = 20, **kw: object) -> None:
        self.pieces: list[tuple[str, str]] = []
        self._changed = threading.Condition()
        self.command = Command(argv, self._on, **kw)  # type: ignore[arg-type]
        self.outcome: Outcome | None = None
        self._thread = threading.Thread(
            target=lambda: setattr(self, "outcome", self.command.run(str(tmp_path), ENV, timeout))
        )
        self._thread.start()

    def _on(self, stream: str, text: str) -> None:
        with self._changed:
            self.pieces.append((stream, text))
            self._changed.notify_all()

    @property
    def text(self) -> str:
        return "".join(t for _, t in self.pieces)

    def shows(self, wanted: str, timeout: float = 10) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: wanted in self.text, timeout), self.text

    def ended(self, timeout: float = 20) -> Outcome:
        self._thread.join(timeout)
        assert self.outcome is not None, "still running"
        return self.outcome


def test_live_input_is_read_in_order_and_closing_it_ends_a_reading_program(
    tmp_path: Path,
) -> None:
    script = 'while read -r line; do echo "<$line>"; done; echo "input ended"'
    running = Running(["bash", "-c", script], tmp_path, stdin=b"first\n", live=True)
    assert running.command.write(b"sec") == "ok"
    assert running.command.write(b"ond\n") == "ok"
    running.shows("<second>")
    assert running.command.close_input()
    done = running.ended()
    assert done.returncode == 0
    assert running.text == "<first>\n<second>\ninput ended\n"
    assert running.command.write(b"late\n") == "closed"
    assert not running.command.close_input()


def test_input_past_the_backlog_is_refused_whole_until_the_program_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shell_exec, "MAX_BACKLOG", 10)
    script = 'read -r go; echo "go:$go"; cat'
    running = Running(["bash", "-c", script], tmp_path, live=True)
    assert running.command.write(b"x" * 11) == "full"
    assert running.command.write(b"now\n") == "ok"
    running.shows("go:now")
    running.command.close_input()
    assert running.ended().returncode == 0
    assert "x" not in running.text


def test_input_to_a_command_without_live_input_is_closed(tmp_path: Path) -> None:
    command = Command(["cat"], stdin=b"given")
    assert command.write(b"more") == "closed" and not command.close_input()
    assert command.run(str(tmp_path), ENV, 10).stdout == "given"


def test_a_terminal_is_the_programs_controlling_tty_of_the_size_asked(tmp_path: Path) -> None:
    code = (  # not bash: bash takes a terminal on its stdin as its own; a program may not
        "import os, sys; size = os.get_terminal_size(); print(size.lines, size.columns);"
        " print(all(os.isatty(fd) for fd in (0, 1, 2)));"
        " open('/dev/tty', 'w').write('via-dev-tty\\n'); print('to-stderr', file=sys.stderr)"
    )
    running = Running([sys.executable, "-c", code], tmp_path, terminal=(33, 101))
    done = running.ended()
    assert done.returncode == 0 and done.stdout == done.stderr == ""
    assert running.text == "33 101\r\nTrue\r\nvia-dev-tty\r\nto-stderr\r\n"
    assert {stream for stream, _ in running.pieces} == {"stdout"}


def test_typing_into_a_terminal_reaches_the_program_and_a_resize_is_seen(
    tmp_path: Path,
) -> None:
    script = 'read -r -p "name? " who; echo "hi $who"; read -r _; stty size'
    running = Running(["bash", "-c", script], tmp_path, terminal=(24, 80))
    running.shows("name? ")
    assert running.command.write(b"ada\r") == "ok"
    running.shows("hi ada")
    assert running.command.in_terminal
    assert running.command.resize(50, 132)
    running.command.write(b"\r")
    assert running.ended().returncode == 0
    assert running.text.endswith("50 132\r\n")
    assert not running.command.resize(10, 10)  # ended: nothing to resize


def test_ctrl_c_typed_interrupts_the_program_and_closing_input_sends_eof(
    tmp_path: Path,
) -> None:
    script = 'trap "echo interrupted; exit 7" INT; echo ready; sleep 30 & wait'
    running = Running(["bash", "-c", script], tmp_path, terminal=(24, 80))
    running.shows("ready")
    running.command.write(b"\x03")
    assert running.ended().returncode == 7
    assert "interrupted" in running.text
    cat = Running(["cat"], tmp_path, terminal=(24, 80))
    cat.command.write(b"echoed\r")
    cat.command.close_input()  # ^D on an empty line: cat reads end-of-file
    assert cat.ended().returncode == 0


def test_a_terminal_command_that_cannot_start_raises_before_anything_runs(
    tmp_path: Path,
) -> None:
    for program in ("no-such-program-anywhere", str(tmp_path / "nope"), "./nope"):
        with pytest.raises(FileNotFoundError):
            Command([program], terminal=(24, 80)).run(str(tmp_path), ENV, 10)


def test_a_terminal_command_past_its_timeout_is_ended_with_its_group(tmp_path: Path) -> None:
    running = Running(["bash", "-c", "sleep 30 & echo started; wait"], tmp_path, timeout=0.5,
                      terminal=(24, 80))  # fmt: skip
    done = running.ended()
    assert done.timed_out and done.returncode == -15
