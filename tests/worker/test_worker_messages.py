"""Conversation messages crossing the wire: hermes' private keys never leave the
worker, and a host's replacement conversation is checked item by item."""

from __future__ import annotations

import pytest

from hermes_stdio.worker.messages import checked, public


def test_public_copies_drop_hermes_private_keys_and_non_objects() -> None:
    stored = [{"role": "user", "content": "hi", "_db_persisted": True}, "junk"]
    assert public(stored) == [{"role": "user", "content": "hi"}]
    assert stored[0]["_db_persisted"] is True  # the originals are untouched


def test_checked_accepts_every_known_role_and_returns_fresh_copies() -> None:
    given = [{"role": r, "content": "x", "_mark": 1} for r in ("system", "user", "assistant")]
    given.append({"role": "tool", "tool_call_id": "c1", "content": "out"})
    out = checked(given)
    assert [m["role"] for m in out] == ["system", "user", "assistant", "tool"]
    assert all("_mark" not in m for m in out) and out[0] is not given[0]


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        ([], "must not be empty"),
        ([{"role": "user"}, {"role": "narrator"}], "messages[1]"),
        ([{"content": "no role"}], "messages[0]"),
        (["text"], "messages[0]"),
    ],
)
def test_checked_names_the_first_bad_item(raw: list, named: str) -> None:
    with pytest.raises(ValueError, match=named.replace("[", r"\[")):
        checked(raw)
