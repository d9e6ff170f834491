"""The worker's way out: MCP servers closed and exit handlers run, side by side, and
never for longer than the budget the supervisor allows."""

from __future__ import annotations

import threading
import time

import pytest

from hermes_stdio.worker import main


class HangingClose:
    def __init__(self, release: threading.Event) -> None:
        self.release = release
        self.asked: list[float] = []

    def shutdown(self, timeout: float) -> None:
        self.asked.append(timeout)
        self.release.wait(30)


def test_release_runs_exit_handlers_and_returns_within_its_budget_when_both_hang(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(main, "EXIT_BUDGET_S", 0.5)
    release, ran = threading.Event(), threading.Event()

    def handler() -> None:
        ran.set()
        release.wait(30)

    adapter = HangingClose(release)
    try:
        began = time.monotonic()
        main._release(adapter, handler)  # type: ignore[arg-type]
        took = time.monotonic() - began
    finally:
        release.set()
    assert ran.is_set()
    assert adapter.asked == [main.MCP_CLOSE_S]
    assert took < 5.0  # the 0.5 s budget, not the 30 s the hanging parts would take
