"""Log lines to stderr that stay whole, from any thread.

Contract: ``log(message)`` writes ``message`` and a newline to stderr;
``log_bytes(line)`` writes one line of a child's stderr (adding the newline if
it has none); ``log_current_exception()`` logs the exception being handled
with its traceback. Each line goes out in one piece under one process-wide lock,
after what Python's ``sys.stderr`` holds is flushed, so lines logged at once
from different threads never mix: ``print`` writes a text and its newline
separately, and two threads' lines came out as one. Neither raises: with
nobody reading stderr, the line is lost.

``report_error(exc)`` is ``wire.to_wire_error`` for the I/O layers: the error
object to send, after an unexpected exception's traceback went to stderr in
one piece (the wire never carries it).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Any

from ..wire import RpcError, to_wire_error

_LOCK = threading.Lock()


def log(message: str) -> None:
    log_bytes(message.encode("utf-8", "backslashreplace"))


def log_bytes(line: bytes) -> None:
    if not line.endswith(b"\n"):
        line += b"\n"
    with _LOCK:
        with contextlib.suppress(Exception):  # a replaced or closed sys.stderr
            sys.stderr.flush()
        view = memoryview(line)
        while view:
            try:
                view = view[os.write(2, view) :]
            except InterruptedError:
                continue
            except OSError:
                return


def _format(exc: BaseException) -> str:
    import traceback  # only once something failed: the supervisor starts without it

    return "".join(traceback.format_exception(exc)).rstrip()


def log_current_exception() -> None:
    """Log the exception being handled, with its traceback."""
    exc = sys.exc_info()[1]
    if exc is not None:
        log(_format(exc))


def report_error(exc: BaseException) -> dict[str, Any]:
    if not isinstance(exc, RpcError):
        log("hermes-stdio: unexpected error:\n" + _format(exc))
    return to_wire_error(exc)
