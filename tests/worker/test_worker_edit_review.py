"""The edit hook hermes asks before a write_file or patch call: hermes' own outside a
reviewing session's turn, and fail-closed inside one."""

from __future__ import annotations

import json
import threading
import types
from typing import Any

import pytest

from hermes_stdio.worker import edit_review
from hermes_stdio.worker.state import Session


def hermes_hook() -> tuple[types.SimpleNamespace, list[tuple[str, dict[str, Any]]]]:
    calls: list[tuple[str, dict[str, Any]]] = []

    def original(tool: str, args: dict[str, Any]) -> None:
        calls.append((tool, args))

    return types.SimpleNamespace(maybe_require_edit_approval=original), calls


def test_outside_a_reviewing_sessions_turn_hermes_own_hook_decides() -> None:
    module, calls = hermes_hook()
    assert edit_review.install(module)
    hook = module.maybe_require_edit_approval
    assert hook("write_file", {"path": "a"}) is None
    session = Session("s1", "default")
    with edit_review.reviewing(session):
        assert hook("write_file", {"path": "b"}) is None  # review is off
        session.review_edits = True
        assert hook("terminal", {"command": "ls"}) is None  # not a file-edit tool
    assert calls == [
        ("write_file", {"path": "a"}),
        ("write_file", {"path": "b"}),
        ("terminal", {"command": "ls"}),
    ]


def test_installing_twice_wraps_once() -> None:
    module, _calls = hermes_hook()
    assert edit_review.install(module)
    hook = module.maybe_require_edit_approval
    assert edit_review.install(module)
    assert module.maybe_require_edit_approval is hook
    assert not edit_review.install(types.SimpleNamespace())


def test_the_hook_counts_as_in_place_only_once_hermes_own_was_wrapped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(edit_review, "_hooked", threading.Event())
    assert not edit_review.install(types.SimpleNamespace())  # a hermes without the hook
    assert not edit_review.hooked()
    edit_review.install(hermes_hook()[0])
    assert edit_review.hooked()


def test_an_edit_that_cannot_be_put_to_the_host_is_blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(edit_review, "_review", broken)
    module, calls = hermes_hook()
    edit_review.install(module)
    session = Session("s1", "default")
    session.review_edits = True
    with edit_review.reviewing(session):
        verdict = module.maybe_require_edit_approval("write_file", {"path": "a", "content": "x"})
    assert verdict is not None and "BLOCKED" in json.loads(verdict)["error"]
    assert calls == []
