"""catalog against hermes' real session database (no agent): stored sessions as they are
listed, what they used, where they work, and how a worker loads one again."""

from __future__ import annotations

from typing import Any

import pytest

from hermes_stdio.worker import catalog


def test_a_listed_conversation_adds_up_what_every_row_of_its_chain_used(db: Any, said: Any) -> None:
    db.create_session("root", source="cli")
    said("root", "first")
    db.update_token_counts("root", input_tokens=100, output_tokens=10, api_call_count=2)
    db.end_session("root", "compression")
    db.create_session("tip", source="cli", parent_session_id="root")
    said("tip", "after")
    db.update_token_counts(
        "tip",
        input_tokens=50,
        output_tokens=5,
        reasoning_tokens=3,
        estimated_cost_usd=0.1 + 0.2,  # float noise, rounded away
        cost_status="estimated",
        api_call_count=1,
    )
    [(row, used)], next_offset = catalog.page(db, None, None, False, None, 10, 0)
    assert next_offset is None
    assert row["_lineage_root_id"] == "root"
    assert used == catalog.Spent(150, 15, 0, 0, 3, 3, 0.3)


@pytest.mark.parametrize(
    ("rows", "cost"),
    [
        ([{"estimated_cost_usd": 0.0, "cost_status": "unknown"}], None),  # no price known
        ([{"estimated_cost_usd": 0.0, "cost_status": "included"}], 0.0),  # a subscription's
        ([{"estimated_cost_usd": 0.25}, {"cost_status": "unknown"}], 0.25),
        ([{}], None),
    ],
)
def test_a_conversations_cost_is_null_only_when_hermes_priced_none_of_its_calls(
    rows: list[dict[str, Any]], cost: float | None
) -> None:
    assert catalog.spent(rows).cost_usd == cost


def test_a_workspace_lists_the_sessions_in_it_exactly_a_page_at_a_time(db: Any, said: Any) -> None:
    # hermes' cwd filter is SQL LIKE: /w/my_app also matches /w/myXapp, which is not in it.
    for i, cwd in enumerate(["/w/myXapp", "/w/my_app", "/w/my_app/sub", "/w/my_apps", "/w/my_app"]):
        db.create_session(f"s{i}", source="cli")
        said(f"s{i}", f"message {i}")
        catalog.keep_workspace(db, f"s{i}", cwd)
    listed, next_offset = catalog.page(db, None, None, False, "/w/my_app/", 2, 0)
    assert [r["id"] for r, _ in listed] == ["s4", "s2"] and next_offset is not None
    rest, next_offset = catalog.page(db, None, None, False, "/w/my_app", 2, next_offset)
    assert [r["id"] for r, _ in rest] == ["s1"] and next_offset is None
    everything, _ = catalog.page(db, None, None, False, "/", 10, 0)
    assert len(everything) == 5


def test_a_conversations_workspace_is_stored_on_its_first_and_newest_rows(
    db: Any, said: Any
) -> None:
    db.create_session("root", source="cli")
    said("root", "first")
    assert catalog.workspace_of(db, "root") is None
    db.end_session("root", "compression")
    db.create_session("tip", source="cli", parent_session_id="root")
    said("tip", "after")
    assert catalog.keep_workspace(db, "root", "/w/app") == "tip"
    assert [db.get_session(s)["cwd"] for s in ("root", "tip")] == ["/w/app", "/w/app"]
    assert catalog.workspace_of(db, "root") == "/w/app"
    [(row, _)], _ = catalog.page(db, None, None, False, "/w/app", 10, 0)
    assert (row["id"], row["cwd"]) == ("tip", "/w/app")  # listed under its newest row


def test_a_session_a_worker_loads_again_is_open_again_at_its_newest_row(db: Any, said: Any) -> None:
    db.create_session("root", source="cli")
    said("root", "first")
    db.end_session("root", "compression")  # hermes went on under a new id
    db.create_session("tip", source="cli", parent_session_id="root")
    said("tip", "second")
    db.end_session("tip", "agent_close")  # a destroyed session, or a stopped worker's

    assert catalog.open_tip(db, "root") == "tip"
    assert db.get_session("tip")["ended_at"] is None
    assert db.get_session("root")["end_reason"] == "compression"  # it stays continued
    assert catalog.open_tip(db, "new") == "new" and db.get_session("new") is None
