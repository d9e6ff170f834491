"""settings against hermes' real session database: what a session keeps of a host's
choices, and how a resumed session gets them back under its requests' own."""

from __future__ import annotations

from typing import Any

import pytest

from hermes_stdio.worker import settings
from hermes_stdio.worker.state import Session


def usable(model: str, provider: str | None) -> str | None:
    if model == "gone":
        raise ValueError("no such provider")
    return provider or "custom"


def chosen(session_id: str = "s1") -> Session:
    session = Session(session_id, "default")
    session.choose(model="m2", provider="custom")
    session.choose(instructions="be brief", reasoning_effort="low")
    session.choose(disabled_toolsets=("file", "terminal"))
    return session


def test_a_resumed_session_gets_back_every_choice_stored_with_it(db: Any) -> None:
    settings.keep(db, chosen())

    again = Session("s1", "default", restore=True)
    settings.recall(db, again, usable)

    assert (again.model, again.provider, again.chosen_model) == ("m2", "custom", ("m2", "custom"))
    assert again.instructions == "be brief"
    assert again.reasoning_effort == "low"
    assert again.disabled_toolsets == ("file", "terminal")
    assert not again.switch_pending  # no agent yet: it is built with the model


def test_the_record_is_the_wire_names_of_what_was_chosen_and_nothing_else(db: Any) -> None:
    session = Session("s1", "default")
    session.model = "resolved-default"  # what the agent resolved: not a choice
    session.choose(disabled_toolsets=("terminal",))
    settings.keep(db, session)

    assert db.get_meta("hermes-stdio.settings:s1") == '{"disabledToolsets": ["terminal"]}'


def test_what_a_request_chose_wins_over_what_is_stored(db: Any) -> None:
    settings.keep(db, chosen())

    again = Session("s1", "default")
    again.choose(disabled_toolsets=None)  # run/start disabledToolsets: [] leaves none out
    again.choose(model="m3", provider=None)
    settings.recall(db, again, usable)

    assert again.disabled_toolsets is None
    assert (again.model, again.provider) == ("m3", None)
    assert again.instructions == "be brief"  # not chosen again: the stored one
    settings.keep(db, again)
    stored = settings.stored(db, "s1")
    assert (stored.model, stored.disabled_toolsets, stored.instructions) == ("m3", None, "be brief")


def test_a_stored_model_that_does_not_resolve_is_not_used_and_the_rest_is(db: Any) -> None:
    session = chosen()
    session.choose(model="gone", provider="old-provider")
    settings.keep(db, session)

    again = Session("s1", "default")
    settings.recall(db, again, usable)

    assert (again.model, again.provider) == (None, None)
    assert not again.switch_pending
    assert again.disabled_toolsets == ("file", "terminal")


def test_a_stored_model_that_does_not_resolve_stays_stored_until_a_request_chooses_one(
    db: Any,
) -> None:
    session = chosen()
    session.choose(model="gone", provider="old-provider")
    settings.keep(db, session)

    again = Session("s1", "default")
    settings.recall(db, again, usable)
    again.choose(instructions="be briefer")  # a later write keeps the model
    settings.keep(db, again)
    kept = settings.stored(db, "s1")
    assert (kept.model, kept.provider, kept.instructions) == ("gone", "old-provider", "be briefer")

    again.choose(model="m3", provider=None)
    settings.keep(db, again)
    assert (settings.stored(db, "s1").model, settings.stored(db, "s1").provider) == ("m3", None)


def test_a_session_with_an_agent_switches_to_the_model_read_back(db: Any) -> None:
    settings.keep(db, chosen())
    again = Session("s1", "default", agent=object())

    settings.recall(db, again, usable)

    assert again.switch_pending


def test_settings_are_read_back_once_and_written_only_when_they_change(db: Any) -> None:
    writes: list[str] = []
    real_set = db.set_meta
    db.set_meta = lambda key, value: (writes.append(value), real_set(key, value))
    session = chosen()
    settings.keep(db, session)
    settings.keep(db, session)
    assert len(writes) == 1

    settings.recall(db, session, usable)  # a session made here has nothing to read back
    session.choose(reasoning_effort="high")
    settings.keep(db, session)
    assert len(writes) == 2
    db.set_meta("hermes-stdio.settings:s1", "{}")
    settings.recall(db, session, usable)  # already done: the session keeps its own
    assert session.reasoning_effort == "high"


@pytest.mark.parametrize(
    "raw",
    ["not json", "[1, 2]", '{"model": 5, "reasoningEffort": "huge", "disabledToolsets": [1]}'],
)
def test_an_unreadable_record_gives_nothing_back(db: Any, raw: str) -> None:
    db.set_meta("hermes-stdio.settings:s1", raw)

    assert settings.stored(db, "s1") == settings.Settings()


def test_a_fork_starts_with_its_parents_settings_and_a_delete_forgets_them(db: Any) -> None:
    settings.keep(db, chosen())
    db.set_meta("hermes-stdio.compression:s1", "host")
    db.set_meta("goal:s1", '{"goal": "ship it"}')  # hermes' standing goal
    db.set_meta("goal:branch", '{"goal": "its own"}')

    settings.copy(db, "s1", "branch")
    settings.forget(db, "s1")

    assert settings.stored(db, "branch").disabled_toolsets == ("file", "terminal")
    assert db.get_meta("hermes-stdio.settings:s1") is None
    assert db.get_meta("hermes-stdio.compression:s1") is None
    assert db.get_meta("goal:s1") is None
    assert db.get_meta("goal:branch") == '{"goal": "its own"}'


def compressed_into(db: Any, parent: str, child: str, **marks: Any) -> None:
    if db.get_session(parent) is None:
        db.create_session(parent, "cli")
    db.end_session(parent, "compression")
    db.create_session(child, "cli", parent_session_id=parent, model_config=marks or None)


def test_a_conversation_resumed_by_a_newer_compression_id_gets_its_settings(db: Any) -> None:
    settings.keep(db, chosen("s1"))
    compressed_into(db, "s1", "s2")
    compressed_into(db, "s2", "s3")

    assert settings.stored(db, "s3") == settings.stored(db, "s1") != settings.Settings()
    again = Session("s3", "default", restore=True)
    settings.recall(db, again, usable)
    assert again.instructions == "be brief" and again.chosen_model == ("m2", "custom")


def test_a_continuation_with_settings_of_its_own_keeps_them(db: Any) -> None:
    settings.keep(db, chosen("s1"))
    compressed_into(db, "s1", "s2")
    own = Session("s2", "default")
    own.choose(instructions="be long")
    settings.keep(db, own)
    assert settings.stored(db, "s2").instructions == "be long"
    assert settings.stored(db, "s1").instructions == "be brief"


def test_a_branch_or_subagent_of_a_compressed_row_does_not_take_its_settings(db: Any) -> None:
    settings.keep(db, chosen("s1"))
    compressed_into(db, "s1", "branch", _branched_from="s1")
    compressed_into(db, "s1", "helper", _delegate_from="s1")
    db.create_session("p", "cli")
    db.create_session("child", "cli", parent_session_id="p")  # its parent did not compress
    settings.keep(db, chosen("p"))
    for sid in ("branch", "helper", "child", "nowhere"):
        assert settings.stored(db, sid) == settings.Settings()
