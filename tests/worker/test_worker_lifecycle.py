"""WorkerService sessions, shutdown and EOF; and the service over a real Peer on pipes."""

from __future__ import annotations

import os
import queue
import threading
import time

from hermes_stdio.transport import Peer
from hermes_stdio.transport.timers import Soonest, TimerHandle
from hermes_stdio.wire import Notification, Request, Response
from hermes_stdio.worker.contract import TurnOutcome
from hermes_stdio.worker.service import WorkerService

WAIT = 10.0


def stuck_turn(release: threading.Event, entered: threading.Event):
    """A turn that ignores interrupts until the test releases it."""

    def turn(agent, session, message, stop):
        entered.set()
        release.wait(WAIT)
        agent.sink.delta("after the bound")
        return TurnOutcome("late", [])

    return turn


def completions(harness, run_id: str) -> list[dict]:
    return [m for m in harness.run_messages(run_id) if m["method"] == "run/completed"]


# --- sessions ------------------------------------------------------------------


def test_status_of_an_unknown_session_says_not_loaded(harness):
    answer = harness.call("session/status", {"sessionId": "s_x"})
    assert answer["result"] == {
        "sessionId": "s_x",
        "loaded": False,
        "running": False,
        "runId": None,
        "profile": "default",
        "model": None,
        "messageCount": None,
        "lastUsedAt": None,
        "reasoningEffort": None,
        "workspace": None,
        "disabledToolsets": None,
        "autoApprove": False,
        "reviewEdits": False,
    }


def test_status_of_a_session_reports_its_run_model_and_history(harness):
    entered = harness.block()
    ack = harness.start("hi", sessionId="s1")
    assert entered.wait(WAIT)
    busy = harness.call("session/status", {"sessionId": "s1"})["result"]
    assert busy["loaded"] and busy["running"]
    assert busy["runId"] == ack["runId"]
    assert busy["model"] == "fake-model"
    harness.adapter.wake.set()
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    idle = harness.call("session/status", {"sessionId": "s1"})["result"]
    assert (idle["running"], idle["runId"], idle["messageCount"]) == (False, None, 0)
    assert isinstance(idle["lastUsedAt"], int)


def test_session_list_shows_every_loaded_session(harness):
    for sid in ("a", "b"):
        ack = harness.start(sessionId=sid)
        harness.wait_completed(ack["runId"])
        harness.wait_idle(ack["runId"])
    listed = harness.call("session/list", {})["result"]["sessions"]
    assert sorted(s["sessionId"] for s in listed) == ["a", "b"]
    assert all(s["loaded"] for s in listed)


def test_destroying_an_unknown_session_reports_false(harness):
    assert harness.call("session/destroy", {"sessionId": "nope"})["result"] == {"destroyed": False}


def test_destroying_an_idle_session_ends_and_closes_its_agent_and_forgets_it(harness):
    ack = harness.start(sessionId="s1")
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    assert harness.call("session/destroy", {"sessionId": "s1"})["result"] == {"destroyed": True}
    # hermes' end of a session (its memory provider keeps the conversation), then close
    assert harness.adapter.ended == [(harness.adapter.agents[0], 2, "closed")]
    assert harness.adapter.closed == [harness.adapter.agents[0]]
    assert harness.adapter.forgotten == ["s1"]  # hermes' state of it too: its sudo password
    assert harness.call("session/status", {"sessionId": "s1"})["result"]["loaded"] is False


def test_destroying_a_session_interrupts_its_running_agent(harness):
    harness.service.stop_timeout = 0.5  # bound the wait when the interrupt is lost
    entered = harness.block()
    ack = harness.start(sessionId="s1")
    assert entered.wait(WAIT)
    answer = harness.call("session/destroy", {"sessionId": "s1"})
    assert answer["result"] == {"destroyed": True}
    assert [m for _, m in harness.adapter.interrupts] == ["session destroyed"]
    assert harness.wait_completed(ack["runId"])["status"] == "interrupted"


# --- shutdown and EOF ------------------------------------------------------------


def test_worker_shutdown_interrupts_runs_then_answers_and_signals_done(harness):
    entered = harness.block()
    harness.start()
    assert entered.wait(WAIT)
    answer = harness.call("worker/shutdown", {})
    assert answer == {"id": answer["id"], "result": None}
    assert harness.service.done.wait(WAIT)
    log = harness.peer.snapshot()
    done_at = next(i for i, m in enumerate(log) if m.get("method") == "run/completed")
    assert done_at < log.index(answer)
    assert log[done_at]["params"]["status"] == "error"
    assert log[done_at]["params"]["error"]["type"] == "worker_stopped"  # not a user's interrupt
    assert [m for _, m in harness.adapter.interrupts] == ["worker stopping"]
    assert [(agent, why) for agent, _, why in harness.adapter.ended] == [
        (harness.adapter.agents[0], "shutdown")
    ]
    assert harness.adapter.closed == harness.adapter.agents


def test_stop_runs_saves_a_stuck_runs_transcript_and_completes_it_within_the_bound_once(harness):
    release, entered = threading.Event(), threading.Event()
    harness.adapter.turn = stuck_turn(release, entered)
    harness.service.stop_timeout = 0.2
    saved = []
    harness.adapter.save_transcript = saved.append
    ack = harness.start()
    try:
        assert entered.wait(WAIT)
        harness.service.stop_runs()  # returns after ~stop_timeout although the run is stuck
        assert [c["params"]["error"]["type"] for c in completions(harness, ack["runId"])] == [
            "worker_stopped"
        ]
        # What the stuck turn did so far is saved before the worker goes.
        assert saved == [harness.adapter.agents[0]]
    finally:
        release.set()
    harness.wait_idle(ack["runId"])
    assert len(completions(harness, ack["runId"])) == 1
    assert "after the bound" not in str(harness.peer.snapshot())
    assert harness.call("run/result", {"runId": ack["runId"]})["result"]["status"] == "error"


def test_the_supervisor_closing_the_connection_stops_runs_and_signals_done(harness):
    entered = harness.block()
    ack = harness.start()
    assert entered.wait(WAIT)
    harness.service.on_closed(harness.peer, "end of input")
    assert harness.service.done.is_set()
    assert completions(harness, ack["runId"])[0]["params"]["error"]["type"] == "worker_stopped"


def test_notifications_to_the_worker_are_ignored(harness, capfd):
    harness.service.on_notification(harness.peer, Notification("whatever", {}), b"{}")
    assert harness.peer.snapshot() == []
    assert "whatever" in capfd.readouterr().err


# --- over a real Peer ------------------------------------------------------------------


class Client:
    """The supervisor side: a Peer whose handler queues everything in wire order."""

    def __init__(self) -> None:
        self.inbox: queue.Queue[object] = queue.Queue()
        self.closed = threading.Event()

    def on_request(self, peer: Peer, request: Request) -> None:
        self.inbox.put(request)

    def on_notification(self, peer: Peer, note: Notification, body: bytes) -> None:
        self.inbox.put(note)

    def on_closed(self, peer: Peer, reason: str) -> None:
        self.closed.set()


def test_a_run_over_real_pipes_acks_first_then_streams_then_shuts_down(harness):
    to_worker_r, to_worker_w = os.pipe()
    to_client_r, to_client_w = os.pipe()
    service = WorkerService("default", harness.adapter, stop_timeout=WAIT)
    worker = Peer("supervisor", to_worker_r, to_client_w, service, max_body_bytes=1 << 20)
    service.attach(worker)
    client_handler = Client()
    client = Peer("worker", to_client_r, to_worker_w, client_handler, max_body_bytes=1 << 20)
    worker.start()
    client.start()
    try:
        client.request("run/start", {"message": "hi", "sessionId": "s1"}, client_handler.inbox.put)
        ack = client_handler.inbox.get(timeout=WAIT)
        assert isinstance(ack, Response) and ack.error is None
        assert ack.result["sessionId"] == "s1"
        run_id = ack.result["runId"]
        notes = []
        while not notes or notes[-1].method != "run/completed":
            note = client_handler.inbox.get(timeout=WAIT)
            assert isinstance(note, Notification)
            notes.append(note)
        assert [n.method for n in notes] == [
            "run/started",
            "run/delta",
            "run/event",
            "run/delta",
            "run/completed",
        ]
        assert [n.params["seq"] for n in notes] == [1, 2, 3, 4, 5]
        assert all(n.params["runId"] == run_id for n in notes)
        assert notes[1].params == {"runId": run_id, "sessionId": "s1", "seq": 2, "text": "Hel"}

        client.request("worker/shutdown", {}, client_handler.inbox.put, timeout=WAIT)
        bye = client_handler.inbox.get(timeout=WAIT)
        assert isinstance(bye, Response) and bye.error is None and bye.result is None
        assert service.done.wait(WAIT)
    finally:
        os.close(to_worker_w)  # EOF for the worker's reader
        worker.join(WAIT)
        worker.close_write()
        os.close(to_client_w)  # EOF for the client's reader
        assert client_handler.closed.wait(WAIT)
        client.join(WAIT)
        os.close(to_worker_r)
        os.close(to_client_r)


class _Timers:
    """Records call_later; the test fires the callbacks itself."""

    def __init__(self) -> None:
        self.set: list[tuple[float, object]] = []

    def call_later(self, delay, fn):
        self.set.append((delay, fn))
        return TimerHandle(time.monotonic() + delay, fn)


def test_a_session_unused_for_the_idle_time_is_unloaded_and_its_agent_closed(harness):
    timers = _Timers()
    service = harness.service
    service.session_idle_s, service._idle_timer = 60, Soonest(service._unload_idle, timers)
    closed, close = threading.Event(), harness.adapter.close

    def close_and_tell(agent):
        close(agent)
        closed.set()

    harness.adapter.close = close_and_tell
    forgot, forget = threading.Event(), harness.adapter.forget_session

    def forget_and_tell(session_id):
        forget(session_id)
        forgot.set()

    harness.adapter.forget_session = forget_and_tell
    idle = harness.start("one")
    harness.wait_completed(idle["runId"])
    harness.wait_idle(idle["runId"])
    assert len(timers.set) == 1 and 59 < timers.set[0][0] <= 60  # from the end of its run
    entered = harness.block()
    busy = harness.start("two")
    assert entered.wait(WAIT)
    # Time passes: both sessions were last used long ago, but one is running.
    for session in harness.service.sessions.values():
        session.last_used_at -= 120_000
    timers.set[0][1]()
    assert set(harness.service.sessions) == {busy["sessionId"]}
    assert closed.wait(WAIT)  # on a thread of its own
    assert harness.adapter.closed == [harness.adapter.agents[0]]
    # not over (it goes on when next used): its memory provider keeps what it has so far
    assert harness.adapter.ended == [(harness.adapter.agents[0], 2, "idle")]
    assert forgot.wait(WAIT)  # then hermes' state of it: its sudo password, ...
    assert harness.adapter.forgotten == [idle["sessionId"]]
    status = harness.call("session/status", {"sessionId": idle["sessionId"]})["result"]
    assert status["loaded"] is False
    harness.adapter.wake.set()
    harness.wait_completed(busy["runId"])
    harness.wait_idle(busy["runId"])
    harness.call("session/destroy", {"sessionId": busy["sessionId"]})


def test_a_dropped_session_loaded_again_before_it_is_let_go_keeps_hermes_state(harness):
    ack = harness.start(sessionId="s1")
    harness.wait_completed(ack["runId"])
    harness.wait_idle(ack["runId"])
    dropped = harness.service.sessions["s1"]
    harness.service._let_go(dropped, "idle")  # still loaded: a new run's session has the id
    assert harness.adapter.closed == [dropped.agent] and harness.adapter.forgotten == []
    del harness.service.sessions["s1"]
    harness.service._let_go(dropped, "idle")
    assert harness.adapter.forgotten == ["s1"]


def test_a_session_whose_background_work_goes_on_stays_loaded_until_it_ends(harness):
    timers = _Timers()
    service = harness.service
    service.session_idle_s, service._idle_timer = 60, Soonest(service._unload_idle, timers)
    working: set[str] = set()
    harness.adapter.working_sessions = lambda ids: working & set(ids)
    run = harness.start("start a dev server")
    harness.wait_completed(run["runId"])
    harness.wait_idle(run["runId"])
    sid = run["sessionId"]
    working.add(sid)
    assert harness.call("worker/background", {})["result"] == {"sessions": [sid]}

    service.sessions[sid].last_used_at -= 120_000
    timers.set[-1][1]()
    assert set(service.sessions) == {sid} and harness.adapter.closed == []
    assert 59 < timers.set[-1][0] <= 60  # looked at again a whole timeout later

    working.clear()  # the server exited
    assert harness.call("worker/background", {})["result"] == {"sessions": []}
    service.sessions[sid].last_used_at -= 120_000
    timers.set[-1][1]()
    assert sid not in service.sessions
