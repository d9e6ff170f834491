"""Routes: which worker holds a session, which worker runs a run."""

from __future__ import annotations

import random
import threading

from hermes_stdio.supervisor.routes import Routes, SlotKey

A: SlotKey = ("default", None)
B: SlotKey = ("work", None)
A_KEYED: SlotKey = ("default", "k1")


def test_an_added_session_routes_to_its_slot() -> None:
    routes = Routes()
    routes.add_session("s1", A)
    assert routes.session("s1") == A


def test_an_unknown_session_has_no_route() -> None:
    assert Routes().session("nope") is None


def test_a_dropped_session_has_no_route_and_dropping_twice_is_harmless() -> None:
    routes = Routes()
    routes.add_session("s1", A)
    routes.drop_session("s1")
    routes.drop_session("s1")
    assert routes.session("s1") is None


def test_adding_a_run_also_routes_its_session() -> None:
    routes = Routes()
    routes.add_run("r1", "s1", B)
    route = routes.run("r1")
    assert route is not None
    assert (route.run_id, route.session_id, route.slot) == ("r1", "s1", B)
    assert (route.last_seq, route.done, route.final) == (0, False, None)
    assert routes.session("s1") == B


def test_adding_a_run_twice_keeps_the_first_route() -> None:
    routes = Routes()
    routes.add_run("r1", "s1", A)
    first = routes.run("r1")
    routes.note_seq("r1", 3, completed=False)
    routes.add_run("r1", "s1", A)
    assert routes.run("r1") is first
    assert first is not None and first.last_seq == 3


def test_an_unknown_run_has_no_route_and_noting_its_seq_returns_none() -> None:
    routes = Routes()
    assert routes.run("nope") is None
    assert routes.note_seq("nope", 1, completed=True) is None


def test_note_seq_keeps_the_highest_seq_seen() -> None:
    routes = Routes()
    routes.add_run("r1", "s1", A)
    routes.note_seq("r1", 5, completed=False)
    route = routes.note_seq("r1", 2, completed=False)
    assert route is not None and route.last_seq == 5
    routes.note_seq("r1", 7, completed=False)
    assert route.last_seq == 7
    assert not route.done


def test_note_seq_with_completed_marks_the_run_done_and_ignores_later_events() -> None:
    routes = Routes()
    routes.add_run("r1", "s1", A)
    route = routes.note_seq("r1", 4, completed=True)
    assert route is not None and route.done and route.last_seq == 4
    assert routes.note_seq("r1", 9, completed=False) is None
    assert route.last_seq == 4
    assert routes.run("r1") is route


def test_finish_records_the_synthesized_final_result() -> None:
    routes = Routes()
    routes.add_run("r1", "s1", A)
    route = routes.run("r1")
    assert route is not None
    routes.finish(route, {"status": "error"})
    assert route.done and route.final == {"status": "error"}
    assert routes.note_seq("r1", 1, completed=False) is None


def test_only_the_last_keep_finished_finished_runs_stay_routable() -> None:
    routes = Routes(keep_finished=2)
    for i in range(3):
        routes.add_run(f"r{i}", f"s{i}", A)
    routes.note_seq("r0", 1, completed=True)
    routes.note_seq("r1", 1, completed=True)
    assert routes.run("r0") is not None
    routes.note_seq("r2", 1, completed=True)
    assert routes.run("r0") is None
    assert routes.run("r1") is not None
    assert routes.run("r2") is not None


def test_unfinished_runs_are_never_evicted_by_finished_ones() -> None:
    routes = Routes(keep_finished=1)
    routes.add_run("live", "s0", A)
    for i in range(3):
        routes.add_run(f"r{i}", f"s{i + 1}", A)
        routes.note_seq(f"r{i}", 1, completed=True)
    assert routes.run("live") is not None
    assert routes.run("r1") is None
    assert routes.run("r2") is not None


def test_a_dead_workers_sessions_stay_routed_to_its_slot() -> None:
    routes = Routes()
    routes.add_session("a1", A)
    routes.add_run("a_live", "s1", A)
    routes.add_session("b1", B)
    routes.unfinished(A)
    assert routes.session("a1") == A and routes.session("s1") == A
    assert routes.session("b1") == B
    assert routes.counts(A) == (2, 1)


def test_unfinished_returns_only_that_slots_runs_that_never_completed() -> None:
    routes = Routes()
    routes.add_run("a_live", "s1", A)
    routes.add_run("a_done", "s2", A)
    routes.note_seq("a_done", 1, completed=True)
    routes.add_run("b_live", "s3", B)
    routes.add_run("k_live", "s4", A_KEYED)
    assert [r.run_id for r in routes.unfinished(A)] == ["a_live"]


def test_unfinished_of_an_unknown_slot_is_empty() -> None:
    assert Routes().unfinished(B) == []


def test_counts_reports_sessions_and_running_runs_per_slot() -> None:
    routes = Routes()
    assert routes.counts(A) == (0, 0)
    routes.add_session("idle", A)
    routes.add_run("r1", "s1", A)
    routes.add_run("r2", "s2", A)
    routes.note_seq("r2", 1, completed=True)
    routes.add_run("r3", "s3", B)
    assert routes.counts(A) == (3, 1)
    assert routes.counts(B) == (1, 1)
    routes.drop_session("idle")
    assert routes.counts(A) == (2, 1)


def test_concurrent_runs_from_many_threads_are_all_recorded() -> None:
    routes = Routes(keep_finished=10_000)
    barrier = threading.Barrier(8, timeout=10.0)

    def worker(n: int) -> None:
        barrier.wait()
        for i in range(200):
            routes.add_run(f"r{n}-{i}", f"s{n}-{i}", A)
            routes.note_seq(f"r{n}-{i}", i, completed=i % 2 == 0)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10.0)
    assert not any(t.is_alive() for t in threads)
    assert routes.counts(A) == (1600, 800)


def test_a_new_session_is_claimed_by_the_first_slot_only() -> None:
    routes = Routes()
    assert routes.claim_session("s1", A) == (A, True)
    assert routes.claim_session("s1", A_KEYED) == (A, False)
    assert routes.claim_session("s1", A) == (A, False)


def test_a_failed_claim_is_released_unless_a_run_made_the_session_real() -> None:
    routes = Routes()
    routes.claim_session("s1", A)
    routes.release_session("s1", B)  # not its claim
    assert routes.session("s1") == A
    routes.release_session("s1", A)
    assert routes.session("s1") is None
    routes.claim_session("s2", A)
    routes.add_run("r1", "s2", A)
    routes.release_session("s2", A)
    assert routes.session("s2") == A


def test_a_run_in_another_worker_does_not_keep_a_failed_claim() -> None:
    routes = Routes()
    routes.add_run("r1", "s1", A)  # it ran in A, and was then destroyed there
    routes.finish(routes.run("r1"))  # type: ignore[arg-type]
    routes.drop_session("s1")
    routes.claim_session("s1", B)
    routes.release_session("s1", B)
    assert routes.session("s1") is None


def test_concurrent_claims_of_one_session_have_one_winner() -> None:
    routes = Routes()
    won: list[SlotKey] = []
    start = threading.Barrier(8)

    def claim(key: SlotKey) -> None:
        start.wait(5)
        if routes.claim_session("s1", key)[1]:
            won.append(key)

    threads = [threading.Thread(target=claim, args=(("default", f"k{i}"),)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(5)
    assert len(won) == 1 and routes.session("s1") == won[0]


def test_a_destroyed_sessions_route_stays_while_a_later_run_of_it_is_live() -> None:
    routes = Routes()
    routes.add_run("r1", "s1", A)
    routes.drop_session("s1")  # the destroy answered while r1 still runs
    assert routes.session("s1") == A
    routes.note_seq("r1", 3, completed=True)
    routes.drop_session("s1")
    assert routes.session("s1") is None


def test_counts_kept_per_slot_match_a_recount_after_any_sequence_of_changes() -> None:
    rng = random.Random(7)
    routes = Routes(keep_finished=5)
    slots = [A, B, A_KEYED, ("play", None), ("play", "k1")]
    sessions = [f"s{i}" for i in range(6)]
    started: list[str] = []
    for step in range(3000):
        op, sid, slot = rng.randrange(9), rng.choice(sessions), rng.choice(slots)
        if op == 0:
            routes.add_session(sid, slot)
        elif op == 1:
            routes.claim_session(sid, slot)
        elif op == 2:
            routes.release_session(sid, slot)
        elif op == 3:
            routes.drop_session(sid)
        elif op == 4:
            run_id = f"r{step}"
            routes.add_run(run_id, sid, slot)
            started.append(run_id)
        elif op == 5 and started:
            routes.note_seq(rng.choice(started), 2, completed=True)
        elif op == 6 and started:
            route = routes.run(rng.choice(started))
            if route is not None:
                routes.finish(route)
        elif op == 7:
            for route in routes.unfinished(slot):
                routes.finish(route)
        elif op == 8:
            routes.rename_profile(slot[0], rng.choice(["default", "work", "play"]))
        for key in slots:
            recount = (
                sum(1 for k in routes._sessions.values() if k == key),
                sum(1 for r in routes._runs.values() if r.slot == key and not r.done),
            )
            assert routes.counts(key) == recount, (step, op, key)


def test_renaming_a_profile_moves_its_sessions_and_runs_and_leaves_the_others() -> None:
    routes = Routes()
    routes.add_session("s1", B)
    routes.add_run("r1", "s2", ("work", "k1"))
    routes.add_run("r2", "s3", B)
    routes.note_seq("r2", 1, completed=True)
    routes.add_session("s4", A)
    routes.rename_profile("work", "job")
    assert routes.session("s1") == ("job", None)
    assert routes.session("s2") == ("job", "k1")
    route = routes.run("r2")
    assert route is not None and route.slot == ("job", None)
    assert routes.session("s4") == A
    assert routes.counts(B) == (0, 0)
    assert routes.counts(("job", None)) == (2, 0)
    assert routes.counts(("job", "k1")) == (1, 1)
    assert [r.run_id for r in routes.unfinished(("job", "k1"))] == ["r1"]


def test_a_deleted_profiles_sessions_are_retired_until_a_request_routes_their_ids_anew() -> None:
    routes = Routes()
    routes.add_session("s1", B)
    routes.add_session("s2", ("work", "k1"))
    routes.add_session("s3", A)
    routes.retire_profile("work")
    assert (routes.session("s1"), routes.session("s2")) == (None, None)
    assert (routes.retired("s1"), routes.retired("s2"), routes.retired("s3")) == (
        "work",
        "work",
        None,
    )
    assert routes.session("s3") == A
    assert routes.counts(B) == (0, 0) and routes.counts(("work", "k1")) == (0, 0)
    assert routes.claim_session("s1", A) == (A, True)
    assert routes.retired("s1") is None
    assert routes.retired("s2") == "work"
