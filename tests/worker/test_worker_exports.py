"""exports against hermes' real session database and its real exporters (no agent):
what session/export answers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hermes_stdio.worker import exports

KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"


@pytest.fixture
def stored(db: Any) -> dict[str, Any]:
    db.create_session("sess_1", source="vscode", model="test-model")
    db.append_message("sess_1", "user", f"my key is {KEY}")
    db.append_message("sess_1", "assistant", "Noted, **safely**.")
    db.set_session_title("sess_1", "Keys & things")
    return db.export_session("sess_1")  # type: ignore[no-any-return]


def test_markdown_is_hermes_md_export_with_front_matter_and_each_message(
    stored: dict[str, Any],
) -> None:
    content, count = exports.render(stored, "markdown", redact=False)
    assert count == 2
    assert content.startswith("---\n") and 'session_id: "sess_1"' in content
    assert "# Keys & things" in content
    assert f"my key is {KEY}" in content and "Noted, **safely**." in content
    assert "SHA256 of exported body" in content


def test_redact_masks_secrets_in_every_format(stored: dict[str, Any]) -> None:
    for fmt in ("markdown", "html", "json"):
        content, _ = exports.render(stored, fmt, redact=True)
        assert KEY not in content, fmt
        assert "my key is sk-pro" in content, fmt  # hermes' mask keeps the ends
    assert KEY in stored["messages"][0]["content"]  # the caller's data is left alone


def test_json_is_the_session_and_its_messages_as_the_database_keeps_them(
    stored: dict[str, Any],
) -> None:
    content, count = exports.render(stored, "json", redact=False)
    data = json.loads(content)
    assert (data["id"], data["source"], data["title"], count) == (
        "sess_1",
        "vscode",
        "Keys & things",
        2,
    )
    assert [m["role"] for m in data["messages"]] == ["user", "assistant"]


def test_html_is_hermes_self_contained_page(stored: dict[str, Any]) -> None:
    content, _ = exports.render(stored, "html", redact=False)
    assert content.lstrip().lower().startswith("<!doctype html>")
    assert "Keys &amp; things" in content


def test_json_stays_strict_json_whatever_the_database_holds(stored: dict[str, Any]) -> None:
    odd = {**stored, "cost": float("nan"), "blob": b"\x00\x01"}
    content, _ = exports.render(odd, "json", redact=False)
    data = json.loads(content, parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))
    assert (data["cost"], data["blob"]) == ("nan", "b'\\x00\\x01'")
