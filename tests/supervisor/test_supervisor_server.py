"""The supervisor's own methods, driven in-process with a stand-in host."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.supervisor import server
from hermes_stdio.supervisor.server import Supervisor
from hermes_stdio.wire import ErrorType, Request


class Host:
    def __init__(self) -> None:
        self.answers: list[tuple[Any, Any, Any]] = []

    def respond(self, msg_id: Any, result: Any) -> bool:
        self.answers.append((msg_id, result, None))
        return True

    def respond_error(self, msg_id: Any, error: Any) -> bool:
        self.answers.append((msg_id, None, error))
        return True


def test_a_restart_whose_thread_cannot_start_fails_alone_and_the_next_restart_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "profiles" / "play").mkdir(parents=True)
    sup = Supervisor(
        tmp_path, sys.executable, max_body_bytes=1 << 20, base_env={}, worker_template=False
    )
    host = Host()
    sup.host = host  # type: ignore[assignment]
    sup.state = "initialized"

    def no_thread(fn: Callable[[], None]) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(server, "spawn_thread", no_thread)
    sup.on_request(host, Request(1, "worker/restart", {"profile": "play"}))  # type: ignore[arg-type]
    ((msg_id, result, error),) = host.answers
    assert msg_id == 1 and result is None
    assert error["code"] == ErrorType.INTERNAL_ERROR.code
    started: list[Callable[[], None]] = []
    monkeypatch.setattr(server, "spawn_thread", started.append)
    sup.on_request(host, Request(2, "worker/restart", {"profile": "play"}))  # type: ignore[arg-type]
    assert len(started) == 1  # its own restart, not a place in the failed one's group
