"""Run numbering and the terminal notification; RunTable retention; Session info."""

from __future__ import annotations

import json
import threading
import time

from hermes_stdio.protocol import types as t
from hermes_stdio.wire import encode_notification
from hermes_stdio.worker.state import Run, RunTable, Session, new_id


class Sent:
    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def __call__(self, body: bytes) -> bool:
        self.bodies.append(body)
        return True

    def params(self) -> list[dict]:
        return [json.loads(b)["params"] for b in self.bodies]


def test_a_run_delta_has_exact_wire_bytes():
    sent = Sent()
    run = Run("run_1", "sess_1", sent)
    assert run.delta('say "hi" \u20ac\n')
    assert sent.bodies == [
        b'{"jsonrpc":"2.0","method":"run/delta","params":{"runId":"run_1","sessionId":"sess_1",'
        b'"seq":1,"text":"say \\"hi\\" \xe2\x82\xac\\n"}}'
    ]


def test_a_run_delta_is_byte_identical_to_the_generic_encoder():
    sent = Sent()
    run = Run('run_"x"', "sess_\u00e9", sent)
    texts = ["", "plain", "\u65e5\u672c\U0001f600", "\\ back", "\t\x00\x1f", "</script>"]
    for text in texts:
        run.delta(text)
    expected = [
        encode_notification(
            "run/delta",
            {"runId": 'run_"x"', "sessionId": "sess_\u00e9", "seq": i, "text": text},
        )
        for i, text in enumerate(texts, 1)
    ]
    assert sent.bodies == expected


def test_emit_numbers_notifications_after_run_session_and_seq():
    sent = Sent()
    run = Run("r", "s", sent)
    run.emit("run/started", {"profile": "p", "model": None})
    run.emit("run/event", {"event": {"type": "status"}})
    assert sent.bodies[0] == (
        b'{"jsonrpc":"2.0","method":"run/started","params":'
        b'{"runId":"r","sessionId":"s","seq":1,"profile":"p","model":null}}'
    )
    assert [p["seq"] for p in sent.params()] == [1, 2]


def test_seq_is_gapless_and_in_wire_order_across_threads():
    sent = Sent()
    run = Run("r", "s", sent)
    barrier = threading.Barrier(8)

    def work(n: int) -> None:
        barrier.wait(10)
        for i in range(200):
            if i % 2:
                run.delta(f"{n}-{i}")
            else:
                run.emit("run/event", {"event": {"type": "x"}})

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(10)
    run.complete("complete", t.RunOutput("done", 1, 1), None)
    assert [p["seq"] for p in sent.params()] == list(range(1, 8 * 200 + 2))


def test_complete_sends_exactly_one_run_completed_with_the_next_seq():
    sent = Sent()
    run = Run("r", "s", sent)
    run.delta("a")
    assert run.complete("complete", t.RunOutput("a", 2, 1), None) is True
    assert run.complete("error", None, t.RunError("agent_error", "late")) is False
    assert run.complete("interrupted") is False
    assert len(sent.bodies) == 2
    assert json.loads(sent.bodies[1]) == {
        "jsonrpc": "2.0",
        "method": "run/completed",
        "params": {
            "runId": "r",
            "sessionId": "s",
            "seq": 2,
            "status": "complete",
            "result": {"finalResponse": "a", "messageCount": 2, "apiCalls": 1, "usage": None},
            "error": None,
        },
    }


def test_deltas_and_events_after_completion_are_dropped():
    sent = Sent()
    run = Run("r", "s", sent)
    run.complete("interrupted")
    assert run.delta("late") is False
    assert run.emit("run/event", {"event": {"type": "late"}}) is False
    assert len(sent.bodies) == 1


def test_status_is_running_until_completed_then_the_outcome():
    run = Run("r", "s", Sent())
    assert run.status() == t.RunResultResult("r", "s", "running", None, None)
    err = t.RunError("agent_error", "x")
    run.complete("error", None, err)
    assert run.status() == t.RunResultResult("r", "s", "error", None, err)
    assert run.done


def test_a_run_steers_no_agent_until_given_one_and_none_once_it_has_completed():
    run = Run("r", "s", Sent())
    assert run.steer_target() is None
    agent = object()
    run.steer_target = lambda: agent
    assert run.steer_target() is agent
    run.complete("complete", t.RunOutput(None, 0, 0), None)
    assert run.steer_target() is None  # a run kept for run/result holds no agent


def finished_run(table: RunTable, run_id: str, age_s: float = 0.0) -> Run:
    run = Run(run_id, "s", Sent())
    table.add(run)
    run.complete("complete", t.RunOutput(None, 0, 0), None)
    run.finished_at = time.monotonic() - age_s
    table.finished(run)
    return run


def test_run_table_keeps_at_most_keep_finished_runs_oldest_first_out():
    table = RunTable(keep=2, ttl_s=1000)
    runs = [finished_run(table, f"r{i}") for i in range(4)]
    assert table.get("r0") is None and table.get("r1") is None
    assert table.get("r2") is runs[2] and table.get("r3") is runs[3]
    assert len(table) == 2


def test_run_table_forgets_finished_runs_after_ttl():
    table = RunTable(keep=100, ttl_s=60)
    finished_run(table, "old", age_s=61)
    fresh = finished_run(table, "fresh", age_s=1)
    assert table.get("old") is None
    assert table.get("fresh") is fresh


def test_run_table_never_prunes_active_runs():
    table = RunTable(keep=0, ttl_s=0)
    active = Run("active", "s", Sent())
    table.add(active)
    finished_run(table, "done")
    assert table.get("active") is active
    assert table.get("done") is None
    assert table.active() == [active]


def test_a_finished_run_moves_out_of_the_active_list():
    table = RunTable()
    run = Run("r", "s", Sent())
    table.add(run)
    assert table.active() == [run]
    run.complete("complete")
    table.finished(run)
    assert table.active() == []
    assert table.get("r") is run


def test_session_info_reports_the_current_run_and_history_size():
    session = Session("s1", "default", model="m")
    session.history = [{"role": "user"}, {"role": "assistant"}]
    assert session.info() == t.SessionInfo(
        "s1",
        True,
        False,
        None,
        "default",
        "m",
        2,
        session.last_used_at,
        None,
        None,
        None,
        False,
        False,
    )
    session.run = Run("r1", "s1", Sent())
    assert session.info().running is True
    assert session.info().run_id == "r1"


def test_new_ids_are_prefixed_and_unique():
    ids = {new_id("run") for _ in range(1000)}
    assert len(ids) == 1000
    assert all(i.startswith("run_") for i in ids)


def test_what_the_host_opted_out_of_is_dropped_before_it_takes_a_seq():
    from hermes_stdio.protocol.opt_out import OptOut

    sent = Sent()
    run = Run("r", "s", sent, OptOut(frozenset({"run/delta"}), frozenset({"tool.progress"})))
    run.emit("run/started", {"profile": "p"})
    assert run.delta("dropped")
    assert run.emit("run/event", {"event": {"type": "tool.progress"}})
    run.emit("run/event", {"event": {"type": "status"}})
    run.complete("complete")
    methods = [json.loads(b)["method"] for b in sent.bodies]
    assert [(p["seq"], m) for p, m in zip(sent.params(), methods, strict=True)] == [
        (1, "run/started"),
        (2, "run/event"),
        (3, "run/completed"),
    ]
    assert sent.params()[1]["event"] == {"type": "status"}
