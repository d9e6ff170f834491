"""transport.log: whole lines on stderr, from any thread, never raising."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from hermes_stdio.transport.log import log, log_bytes

WAIT = 30


def test_lines_logged_at_once_from_many_threads_each_arrive_whole(
    capfd: pytest.CaptureFixture[str],
) -> None:
    start = threading.Barrier(8)

    def chatter(n: int) -> None:
        start.wait(WAIT)
        for i in range(300):
            log(f"thread {n} line {i} " + "x" * (i % 50))

    threads = [threading.Thread(target=chatter, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    lines = capfd.readouterr().err.splitlines()
    expected = {f"thread {n} line {i} " + "x" * (i % 50) for n in range(8) for i in range(300)}
    assert sorted(lines) == sorted(expected)


def test_a_childs_line_gets_its_newline_and_keeps_its_bytes(
    capfd: pytest.CaptureFixture[str],
) -> None:
    log_bytes(b"[w] no newline")
    log_bytes(b"[w] has one\n")
    log("caf\u00e9 \udcff")  # a lone surrogate (from a bad filename) is escaped, not fatal
    assert capfd.readouterr().err == "[w] no newline\n[w] has one\ncaf\u00e9 \\udcff\n"


def test_logging_with_stderr_closed_does_not_raise() -> None:
    code = (
        "import os\n"
        "os.close(2)\n"
        "from hermes_stdio.transport.log import log\n"
        "log('nobody reads this')\n"
        "print('still here', flush=True)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=WAIT, check=True
    )
    assert out.stdout == "still here\n"
