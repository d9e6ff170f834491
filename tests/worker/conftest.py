"""A fake agent adapter and a recording fake peer for WorkerService unit tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_stdio.protocol.events import StatusEvent
from hermes_stdio.wire import Request, RpcError
from hermes_stdio.worker.callbacks import EventSink
from hermes_stdio.worker.contract import TurnOutcome
from hermes_stdio.worker.plain import PlainAdapterMethods
from hermes_stdio.worker.service import WorkerService
from hermes_stdio.worker.state import Session

WAIT = 10.0


class FakeAgent:
    def __init__(self, sink: EventSink, model: str | None) -> None:
        self.sink = sink
        self.model = model
        self.interrupted = threading.Event()
        self.interrupt_messages: list[str | None] = []
        self.closed = 0


Turn = Callable[[FakeAgent, Session, str, Callable[[], bool]], TurnOutcome]


def echo_turn(agent: FakeAgent, session: Session, message: str, stop: Any) -> TurnOutcome:
    agent.sink.delta("Hel")
    agent.sink.event(StatusEvent(kind="thinking", message=""))
    agent.sink.delta("lo")
    history = [*session.history, {"role": "user", "content": message}]
    history.append({"role": "assistant", "content": "Hello"})
    return TurnOutcome("Hello", history, api_calls=1)


class FakeAdapter(PlainAdapterMethods):
    """Implements AgentAdapter; ``turn`` and ``build_error`` script its behaviour."""

    def __init__(self) -> None:
        self.turn: Turn = echo_turn
        self.build_error: BaseException | None = None
        self.model = "fake-model"
        self.agents: list[FakeAgent] = []
        self.closed: list[Any] = []
        self.ended: list[tuple[Any, int, str]] = []  # agent, history length, reason
        self.forgotten: list[str] = []  # session ids whose hermes state was dropped
        self.interrupts: list[tuple[Any, str | None]] = []
        self.wake = threading.Event()  # set by interrupt() and by tests releasing a turn

    def preload(self) -> None:
        pass

    def build(self, session: Session, sink: EventSink) -> FakeAgent:
        if self.build_error is not None:
            raise self.build_error
        agent = FakeAgent(sink, session.model or self.model)
        self.agents.append(agent)
        return agent

    def model_of(self, agent: FakeAgent) -> str | None:
        return agent.model

    def run_turn(
        self, agent: FakeAgent, session: Session, message: str, stop_requested: Callable[[], bool]
    ) -> TurnOutcome:
        return self.turn(agent, session, message, stop_requested)

    def interrupt(self, agent: FakeAgent, message: str | None) -> None:
        self.interrupts.append((agent, message))
        agent.interrupt_messages.append(message)
        agent.interrupted.set()
        self.wake.set()

    def end_session(self, agent: FakeAgent, history: list[dict[str, Any]], reason: str) -> None:
        self.ended.append((agent, len(history), reason))

    def close(self, agent: FakeAgent | None) -> None:
        self.closed.append(agent)
        if agent is not None:
            agent.closed += 1

    def forget_session(self, session_id: str) -> None:
        self.forgotten.append(session_id)


class FakePeer:
    """Records everything the service sends, in order, as decoded JSON."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.log: list[dict[str, Any]] = []

    def _add(self, msg: dict[str, Any]) -> bool:
        with self._cond:
            self.log.append(msg)
            self._cond.notify_all()
        return True

    def notify(self, method: str, params: Any) -> bool:
        return self._add({"method": method, "params": json.loads(json.dumps(params))})

    def respond(self, msg_id: Any, result: Any) -> bool:
        return self._add({"id": msg_id, "result": json.loads(json.dumps(result))})

    def respond_error(self, msg_id: Any, error: RpcError | dict[str, Any]) -> bool:
        wire = error.to_wire() if isinstance(error, RpcError) else error
        return self._add({"id": msg_id, "error": wire})

    def send_raw(self, body: bytes) -> bool:
        msg = json.loads(body)
        assert msg.pop("jsonrpc") == "2.0"
        return self._add(msg)

    def wait_for(self, predicate: Callable[[list[dict[str, Any]]], Any]) -> Any:
        with self._cond:
            result = self._cond.wait_for(lambda: predicate(self.log), WAIT)
            assert result, f"timed out; log so far: {self.log}"
            return result

    def snapshot(self) -> list[dict[str, Any]]:
        with self._cond:
            return list(self.log)


class ThreadLog(dict[str, threading.Thread]):
    """The service's run-thread table, remembering every thread ever registered."""

    def __init__(self) -> None:
        super().__init__()
        self.every: dict[str, threading.Thread] = {}

    def __setitem__(self, key: str, value: threading.Thread) -> None:
        self.every[key] = value
        super().__setitem__(key, value)


def blocking_turn(adapter: FakeAdapter, entered: threading.Event | None = None) -> Turn:
    """A turn that streams one delta, then runs until interrupted or ``adapter.wake`` is set."""

    def turn(agent: FakeAgent, session: Session, message: str, stop: Any) -> TurnOutcome:
        agent.sink.delta("partial")
        if entered is not None:
            entered.set()
        adapter.wake.wait(WAIT)
        return TurnOutcome("partial", [*session.history], interrupted=agent.interrupted.is_set())

    return turn


class Harness:
    def __init__(self, adapter: FakeAdapter, peer: FakePeer, service: WorkerService) -> None:
        self.adapter, self.peer, self.service = adapter, peer, service
        self.threads = ThreadLog()
        service._threads = self.threads
        self._ids = iter(range(1, 1 << 30))

    def block(self) -> threading.Event:
        """Make turns block; returns an event set once a turn is running."""
        entered = threading.Event()
        self.adapter.turn = blocking_turn(self.adapter, entered)
        return entered

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request and wait (bounded) for its answer."""
        msg_id = next(self._ids)
        self.service.on_request(self.peer, Request(msg_id, method, params or {}))  # type: ignore[arg-type]
        return self.peer.wait_for(
            lambda log: next((m for m in log if m.get("id") == msg_id and "method" not in m), None)
        )

    def start(self, message: str = "hi", **params: Any) -> dict[str, Any]:
        answer = self.call("run/start", {"message": message, **params})
        assert "result" in answer, answer
        return answer["result"]

    def run_messages(self, run_id: str) -> list[dict[str, Any]]:
        return [
            m for m in self.peer.snapshot() if "method" in m and m["params"].get("runId") == run_id
        ]

    def wait_completed(self, run_id: str) -> dict[str, Any]:
        return self.peer.wait_for(
            lambda log: next(
                (
                    m
                    for m in log
                    if m.get("method") == "run/completed" and m["params"]["runId"] == run_id
                ),
                None,
            )
        )["params"]

    def wait_idle(self, run_id: str) -> None:
        """Wait until the run's thread has fully finished (session freed, table updated)."""
        thread = self.threads.every[run_id]
        thread.join(WAIT)
        assert not thread.is_alive()


@pytest.fixture
def harness() -> Iterator[Harness]:
    adapter, peer = FakeAdapter(), FakePeer()
    service = WorkerService("default", adapter, stop_timeout=WAIT)  # type: ignore[arg-type]
    service.attach(peer)  # type: ignore[arg-type]
    h = Harness(adapter, peer, service)
    yield h
    adapter.wake.set()  # release any turn still blocked
    for thread in h.threads.every.values():
        thread.join(WAIT)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Any]:
    """A real hermes session database of the test's own (hermes' ``SessionDB``)."""
    hermes_state = pytest.importorskip("hermes_state")
    store = hermes_state.SessionDB(db_path=tmp_path / "state.db")
    yield store
    store.close()


@pytest.fixture
def said(db: Any) -> Any:
    """Stores messages in ``db`` as a turn would: ``said(session_id, *contents, role=...)``."""

    def store(session_id: str, *contents: str, role: str = "user", **extra: Any) -> None:
        for content in contents:
            db.append_message(session_id=session_id, role=role, content=content, **extra)

    return store
