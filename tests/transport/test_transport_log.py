"""transport.log: whole lines on stderr, from any thread, never raising."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from hermes_stdio.transport.log import log, log_bytes, log_current_exception, report_error
from hermes_stdio.wire import ErrorType, RpcError

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


def test_report_error_logs_an_unexpected_traceback_and_returns_only_a_generic_error(
    capfd: pytest.CaptureFixture[str],
) -> None:
    try:
        raise ValueError("secret detail 12345")
    except ValueError as exc:
        wire = report_error(exc)
    assert wire == RpcError(ErrorType.INTERNAL_ERROR).to_wire()
    err = capfd.readouterr().err
    assert err.startswith("hermes-stdio: unexpected error:\nTraceback")
    assert "ValueError: secret detail 12345\n" in err


def test_report_error_passes_an_rpc_error_through_without_a_line(
    capfd: pytest.CaptureFixture[str],
) -> None:
    err = RpcError(ErrorType.UNKNOWN_RUN, "nope", runId="r")
    assert report_error(err) == err.to_wire()
    assert capfd.readouterr().err == ""


def test_the_exception_being_handled_is_logged_with_its_traceback_in_one_piece(
    capfd: pytest.CaptureFixture[str],
) -> None:
    try:
        raise KeyError("lost key")
    except KeyError:
        log_current_exception()
    err = capfd.readouterr().err
    assert err.startswith("Traceback (most recent call last):\n")
    assert err.endswith("KeyError: 'lost key'\n")


def test_with_no_exception_being_handled_nothing_is_logged(
    capfd: pytest.CaptureFixture[str],
) -> None:
    log_current_exception()
    assert capfd.readouterr().err == ""
