"""catalog against hermes' real session database (no agent): what session/search finds,
and how a match's snippet is split into its matched pieces."""

from __future__ import annotations

from typing import Any

import pytest

from hermes_stdio.worker import catalog


def said(db: Any, session_id: str, *contents: str, role: str = "user", **extra: Any) -> None:
    for content in contents:
        db.append_message(session_id=session_id, role=role, content=content, **extra)


def test_a_match_names_the_conversation_it_is_listed_as_and_subagent_matches_are_dropped(
    db: Any,
) -> None:
    db.create_session("root", source="cli")
    said(db, "root", "plan the kiwi harvest")
    db.end_session("root", "compression")  # hermes went on under a new id
    db.create_session("tip", source="cli", parent_session_id="root")
    said(db, "tip", "more kiwi please")
    db.set_session_title("tip", "Kiwi plan")
    db.set_session_archived("root", True)
    db.create_session(
        "sub", source="cli", parent_session_id="tip", model_config={"_delegate_from": "tip"}
    )
    said(db, "sub", "a subagent's kiwi task")
    db.create_session("other", source="vscode")
    said(db, "other", "green like a kiwi", role="assistant")

    found, next_offset = catalog.search(db, "kiwi", None, None, "oldest", 10, 0)
    assert [(f.session_id, f.title, f.archived, f.row["role"]) for f in found] == [
        ("root", "Kiwi plan", True, "user"),
        ("root", "Kiwi plan", True, "user"),
        ("other", None, False, "assistant"),
    ]
    assert next_offset is None
    found, _ = catalog.search(db, "kiwi", ["assistant"], None, "relevance", 10, 0)
    assert [f.session_id for f in found] == ["other"]
    found, _ = catalog.search(db, "kiwi", None, "vscode", "relevance", 10, 0)
    assert [f.session_id for f in found] == ["other"]


def test_a_page_says_where_the_next_one_starts(db: Any) -> None:
    db.create_session("s", source="cli")
    said(db, "s", "kiwi one", "kiwi two", "kiwi three")
    first, at = catalog.search(db, "kiwi", None, None, "oldest", 2, 0)
    assert [f.row["snippet"].split()[-1] for f in first] == ["one", "two"] and at == 2
    rest, at = catalog.search(db, "kiwi", None, None, "oldest", 2, 2)
    assert [f.row["snippet"].split()[-1] for f in rest] == ["three"] and at is None


def test_a_page_is_filled_past_the_subagent_matches_it_skips(db: Any) -> None:
    db.create_session("s", source="cli")
    db.create_session("sub", source="cli", model_config={"_delegate_from": "s"})
    for i in range(5):  # the subagent's matches come between the conversation's
        said(db, "s", f"kiwi {i}")
        said(db, "sub", f"kiwi sub{i}", "kiwi more")
    pages, at = [], 0
    while at is not None:
        page, at = catalog.search(db, "kiwi", None, None, "oldest", 2, at)
        pages.append([f.row["snippet"].split()[-1] for f in page])
    assert pages == [["0", "1"], ["2", "3"], ["4"]]


@pytest.mark.parametrize(
    ("snippet", "query", "parts"),
    [
        (
            "plan the >>>kiwi<<< harvest  ",
            "kiwi",
            [("plan the ", False), ("kiwi", True), (" harvest", False)],
        ),
        (">>>kiwi<<<>>>s<<< ripen", "kiwi*", [("kiwis", True), (" ripen", False)]),
        ("...dawn and >>>kiwi<<<", "kiwi", [("...dawn and ", False), ("kiwi", True)]),
        # hermes' substring search of a short CJK query marks nothing: its words are marked here
        ("我们的夏天很长", "夏天", [("我们的", False), ("夏天", True), ("很长", False)]),
        ("Kiwi or KIWI", '"kiwi" OR x', [("Kiwi", True), (" or ", False), ("KIWI", True)]),
        ("no marks at all", "AND", [("no marks at all", False)]),
        ("", "kiwi", []),
    ],
)
def test_a_snippet_splits_into_its_matched_and_unmatched_pieces(
    snippet: str, query: str, parts: list[tuple[str, bool]]
) -> None:
    assert catalog.snippet_parts(snippet, query) == parts


def test_a_listed_conversation_adds_up_what_every_row_of_its_chain_used(db: Any) -> None:
    db.create_session("root", source="cli")
    said(db, "root", "first")
    db.update_token_counts("root", input_tokens=100, output_tokens=10, api_call_count=2)
    db.end_session("root", "compression")
    db.create_session("tip", source="cli", parent_session_id="root")
    said(db, "tip", "after")
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


def test_a_workspace_lists_the_sessions_in_it_exactly_a_page_at_a_time(db: Any) -> None:
    # hermes' cwd filter is SQL LIKE: /w/my_app also matches /w/myXapp, which is not in it.
    for i, cwd in enumerate(["/w/myXapp", "/w/my_app", "/w/my_app/sub", "/w/my_apps", "/w/my_app"]):
        db.create_session(f"s{i}", source="cli")
        said(db, f"s{i}", f"message {i}")
        catalog.keep_workspace(db, f"s{i}", cwd)
    listed, next_offset = catalog.page(db, None, None, False, "/w/my_app/", 2, 0)
    assert [r["id"] for r, _ in listed] == ["s4", "s2"] and next_offset is not None
    rest, next_offset = catalog.page(db, None, None, False, "/w/my_app", 2, next_offset)
    assert [r["id"] for r, _ in rest] == ["s1"] and next_offset is None
    everything, _ = catalog.page(db, None, None, False, "/", 10, 0)
    assert len(everything) == 5


def test_a_conversations_workspace_is_stored_on_its_first_and_newest_rows(db: Any) -> None:
    db.create_session("root", source="cli")
    said(db, "root", "first")
    assert catalog.workspace_of(db, "root") is None
    db.end_session("root", "compression")
    db.create_session("tip", source="cli", parent_session_id="root")
    said(db, "tip", "after")
    assert catalog.keep_workspace(db, "root", "/w/app") == "tip"
    assert [db.get_session(s)["cwd"] for s in ("root", "tip")] == ["/w/app", "/w/app"]
    assert catalog.workspace_of(db, "root") == "/w/app"
    [(row, _)], _ = catalog.page(db, None, None, False, "/w/app", 10, 0)
    assert (row["id"], row["cwd"]) == ("tip", "/w/app")  # listed under its newest row


def test_a_session_a_worker_loads_again_is_open_again_at_its_newest_row(db: Any) -> None:
    db.create_session("root", source="cli")
    said(db, "root", "first")
    db.end_session("root", "compression")  # hermes went on under a new id
    db.create_session("tip", source="cli", parent_session_id="root")
    said(db, "tip", "second")
    db.end_session("tip", "agent_close")  # a destroyed session, or a stopped worker's

    assert catalog.open_tip(db, "root") == "tip"
    assert db.get_session("tip")["ended_at"] is None
    assert db.get_session("root")["end_reason"] == "compression"  # it stays continued
    assert catalog.open_tip(db, "new") == "new" and db.get_session("new") is None
