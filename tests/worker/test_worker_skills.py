"""Slash commands against fake skill and bundle modules shaped like hermes': what is
listed, what expands, and what is left as typed."""

from __future__ import annotations

from typing import Any

import pytest

from hermes_stdio.protocol.events import CommandExpandedEvent
from hermes_stdio.worker import skills


class FakeSkills:
    def __init__(self) -> None:
        self.on_disk = {"/alpha": {"name": "alpha", "description": "A."}}
        self.known: dict[str, dict[str, Any]] = {}
        self.scans = 0
        self.broken = False

    def scan_skill_commands(self) -> dict[str, dict[str, Any]]:
        self.scans += 1
        self.known = dict(self.on_disk)
        return self.known

    def get_skill_commands(self) -> dict[str, dict[str, Any]]:
        return self.known

    def resolve_skill_command_key(self, name: str) -> str | None:
        key = "/" + name.replace("_", "-")
        return key if key in self.known else None

    def split_stacked_skill_commands(self, rest: str) -> tuple[list[str], str]:
        words = rest.split()
        keys = [w for w in words if w.startswith("/") and w in self.known]
        return keys, " ".join(w for w in words if w not in keys)

    def build_skill_invocation_message(self, key: str, rest: str, **kw: Any) -> str | None:
        return None if self.broken else f"[skill {key}] {rest}"

    def build_stacked_skill_invocation_message(
        self, keys: list[str], rest: str, **kw: Any
    ) -> tuple[str, list[str], list[str]]:
        return f"[skills {keys}] {rest}", [k[1:] for k in keys], []


class FakeBundles:
    def __init__(self) -> None:
        self.known = {"/pair": {"description": "Two."}}

    def scan_bundles(self) -> dict[str, dict[str, Any]]:
        return self.known

    def resolve_bundle_command_key(self, name: str) -> str | None:
        key = "/" + name
        return key if key in self.known else None

    def build_bundle_invocation_message(
        self, key: str, rest: str, **kw: Any
    ) -> tuple[str, list[str], list[str]]:
        return f"[bundle {key}] {rest}", ["alpha"], ["gone"]


def test_commands_are_listed_sorted_and_a_bundle_hides_a_skill_of_its_name() -> None:
    fake_skills, bundles = FakeSkills(), FakeBundles()
    fake_skills.on_disk["/pair"] = {"name": "pair", "description": "skill"}
    assert skills.list_commands(fake_skills, bundles) == [
        {"name": "/alpha", "description": "A.", "kind": "skill"},
        {"name": "/pair", "description": "Two.", "kind": "bundle"},
    ]


@pytest.mark.parametrize("message", ["hello /alpha", "/", "/nope do it", "/etc/hosts", "//alpha"])
def test_messages_that_do_not_start_with_a_known_command_stay_as_typed(message: str) -> None:
    fake_skills = FakeSkills()
    fake_skills.scan_skill_commands()
    assert skills.expand(fake_skills, FakeBundles(), message, "sess") is None


def expanded(
    fake_skills: FakeSkills, bundles: FakeBundles, message: str
) -> tuple[str, CommandExpandedEvent]:
    found = skills.expand(fake_skills, bundles, message, "sess")
    assert found is not None
    return found


def test_a_skill_a_bundle_and_stacked_skills_expand_with_the_rest_as_the_instruction() -> None:
    fake_skills, bundles = FakeSkills(), FakeBundles()
    fake_skills.on_disk["/beta"] = {"name": "beta"}
    fake_skills.scan_skill_commands()
    text, event = expanded(fake_skills, bundles, "/alpha  do it ")
    assert text == "[skill /alpha] do it"
    assert event == CommandExpandedEvent(
        command="/alpha", kind="skill", skills=["alpha"], missing=[]
    )
    text, event = expanded(fake_skills, bundles, "/pair go")
    assert (text, event.kind, event.missing) == ("[bundle /pair] go", "bundle", ["gone"])
    text, event = expanded(fake_skills, bundles, "/alpha /beta go")
    assert event.skills == ["alpha", "beta"] and text.endswith("go")


def test_a_skill_unknown_at_the_last_scan_is_found_by_one_rescan() -> None:
    fake_skills = FakeSkills()
    fake_skills.scan_skill_commands()
    fake_skills.on_disk["/new"] = {"name": "new"}
    assert skills.expand(fake_skills, FakeBundles(), "/new", "sess") is not None
    scans = fake_skills.scans
    assert skills.expand(fake_skills, FakeBundles(), "/missing", "sess") is None
    assert fake_skills.scans == scans + 1


def test_a_skill_that_cannot_load_is_an_error_not_a_silent_plain_message() -> None:
    fake_skills = FakeSkills()
    fake_skills.scan_skill_commands()
    fake_skills.broken = True
    with pytest.raises(ValueError):
        skills.expand(fake_skills, FakeBundles(), "/alpha", "sess")
