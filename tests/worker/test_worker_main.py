"""The worker's warm-up and its way out: hermes imported, then what lives frozen out of
the cycle collector's sight, then MCP servers connected; on the way out MCP servers
closed and exit handlers run, side by side, and never for longer than the budget the
supervisor allows."""

from __future__ import annotations

import gc
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


class Node:
    me: object


def test_freezing_the_heap_takes_what_lives_now_out_of_every_collection() -> None:
    cycle = Node()
    cycle.me = cycle  # only the cycle collector could ever free it
    try:
        main.freeze_heap()
        assert gc.get_freeze_count() > 0
        assert not any(o is cycle for o in gc.get_objects())  # in no generation it walks
    finally:
        gc.unfreeze()
    assert any(o is cycle for o in gc.get_objects())


class Warming:
    def __init__(self, steps: list[str]) -> None:
        self.steps = steps

    def preload(self) -> None:
        self.steps.append("preload")

    def connect_mcp(self) -> None:
        self.steps.append("connect_mcp")

    def warm_build(self) -> None:
        self.steps.append("warm_build")


def test_warm_up_freezes_the_heap_once_hermes_is_imported_and_before_mcp_servers_connect() -> None:
    steps: list[str] = []
    main.warm_up(Warming(steps), freeze=lambda: steps.append("freeze"))  # type: ignore[arg-type]
    # The MCP servers start connecting before a first build is warmed: they take longest.
    assert steps == ["preload", "freeze", "connect_mcp", "warm_build"]
