"""message_search against hermes' real session database (no agent): what session/search
finds, and how a match's snippet is split into its matched pieces."""

from __future__ import annotations

from typing import Any

import pytest

from hermes_stdio.worker import message_search


def test_a_match_names_the_conversation_it_is_listed_as_and_subagent_matches_are_dropped(
    db: Any, said: Any
) -> None:
    db.create_session("root", source="cli")
    said("root", "plan the kiwi harvest")
    db.end_session("root", "compression")  # hermes went on under a new id
    db.create_session("tip", source="cli", parent_session_id="root")
    said("tip", "more kiwi please")
    db.set_session_title("tip", "Kiwi plan")
    db.set_session_archived("root", True)
    db.create_session(
        "sub", source="cli", parent_session_id="tip", model_config={"_delegate_from": "tip"}
    )
    said("sub", "a subagent's kiwi task")
    db.create_session("other", source="vscode")
    said("other", "green like a kiwi", role="assistant")

    found, next_offset = message_search.search(db, "kiwi", None, None, "oldest", 10, 0)
    assert [(f.session_id, f.title, f.archived, f.row["role"]) for f in found] == [
        ("root", "Kiwi plan", True, "user"),
        ("root", "Kiwi plan", True, "user"),
        ("other", None, False, "assistant"),
    ]
    assert next_offset is None
    found, _ = message_search.search(db, "kiwi", ["assistant"], None, "relevance", 10, 0)
    assert [f.session_id for f in found] == ["other"]
    found, _ = message_search.search(db, "kiwi", None, "vscode", "relevance", 10, 0)
    assert [f.session_id for f in found] == ["other"]


def test_a_page_says_where_the_next_one_starts(db: Any, said: Any) -> None:
    db.create_session("s", source="cli")
    said("s", "kiwi one", "kiwi two", "kiwi three")
    first, at = message_search.search(db, "kiwi", None, None, "oldest", 2, 0)
    assert [f.row["snippet"].split()[-1] for f in first] == ["one", "two"] and at == 2
    rest, at = message_search.search(db, "kiwi", None, None, "oldest", 2, 2)
    assert [f.row["snippet"].split()[-1] for f in rest] == ["three"] and at is None


def test_a_page_is_filled_past_the_subagent_matches_it_skips(db: Any, said: Any) -> None:
    db.create_session("s", source="cli")
    db.create_session("sub", source="cli", model_config={"_delegate_from": "s"})
    for i in range(5):  # the subagent's matches come between the conversation's
        said("s", f"kiwi {i}")
        said("sub", f"kiwi sub{i}", "kiwi more")
    pages, at = [], 0
    while at is not None:
        page, at = message_search.search(db, "kiwi", None, None, "oldest", 2, at)
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
    assert message_search.snippet_parts(snippet, query) == parts
