"""Helpers the WorkerService tests share (tests/worker/test_worker_service_*.py)."""

from __future__ import annotations

from hermes_stdio.wire import ErrorType

WAIT = 10.0


def error_of(answer: dict) -> ErrorType:
    kind = next(e for e in ErrorType if e.code == answer["error"]["code"])
    assert answer["error"]["data"]["type"] == kind.type
    return kind
