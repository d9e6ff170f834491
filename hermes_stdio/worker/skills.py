"""Slash commands: a profile's skills and skill bundles, the way hermes' CLI runs them.

Contract (hermes' ``agent.skill_commands`` and ``agent.skill_bundles`` modules
are passed in, so that only ``adapter`` imports hermes-agent):
- ``list_commands(skills, bundles)`` scans the profile's skills and bundles
  afresh: one ``{name: "/slug", description, kind: "skill" | "bundle"}`` per
  command, sorted by name; a bundle hides a skill of the same name, as in
  hermes.
- ``expand(skills, bundles, message, task_id)``: when ``message`` starts with
  ``/name`` naming a bundle or skill (``-`` and ``_`` alike), the user message
  hermes' CLI would send for it (the skills' content, then the rest of the
  message as the instruction; ``/a /b do x`` loads both skills) and what the
  ``command.expanded`` event says; None for any other message, so a path
  like ``/etc/hosts`` is sent as typed. A skill added since the last scan is
  found by one rescan. Raises ``ValueError`` when a named skill cannot load.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from ..protocol import events as ev

Kind = Literal["skill", "bundle"]

_COMMAND = re.compile(r"/([A-Za-z0-9][A-Za-z0-9_-]*)(?:\s+|$)")
_NOTE = (
    "If you need user clarification, call the clarify tool. "
    "Do not output raw JSON question/choices payloads as the final response."
)


def list_commands(skills: Any, bundles: Any) -> list[dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for kind, scanned in (
        ("skill", skills.scan_skill_commands()),
        ("bundle", bundles.scan_bundles()),
    ):
        for key, info in scanned.items():
            description = str(info.get("description") or "")
            found[key] = {"name": key, "description": description, "kind": kind}
    return [found[k] for k in sorted(found)]


def _event(key: str, kind: Kind, loaded: Any, missing: Any) -> ev.CommandExpandedEvent:
    return ev.CommandExpandedEvent(
        command=key, kind=kind, skills=[str(s) for s in loaded], missing=[str(s) for s in missing]
    )


def _resolve(skills: Any, bundles: Any, name: str) -> tuple[Kind, str] | None:
    for attempt in range(2):
        if attempt:  # a skill or bundle added since the last scan
            skills.scan_skill_commands()
            bundles.scan_bundles()
        key = bundles.resolve_bundle_command_key(name)
        if key is not None:
            return "bundle", key
        key = skills.resolve_skill_command_key(name)
        if key is not None:
            return "skill", key
    return None


def expand(
    skills: Any, bundles: Any, message: str, task_id: str
) -> tuple[str, ev.CommandExpandedEvent] | None:
    m = _COMMAND.match(message)
    if m is None:
        return None
    found = _resolve(skills, bundles, m.group(1))
    if found is None:
        return None
    kind, key = found
    rest = message[m.end() :].strip()
    if kind == "bundle":
        built = bundles.build_bundle_invocation_message(key, rest, task_id=task_id)
        if not built:
            raise ValueError(f"bundle {key} could not be loaded")
        text, loaded, missing = built
        return text, _event(key, kind, loaded, missing)
    extra, instruction = skills.split_stacked_skill_commands(rest)
    if extra:
        built = skills.build_stacked_skill_invocation_message(
            [key, *extra], instruction, task_id=task_id
        )
        if not built:
            raise ValueError(f"skills {' '.join([key, *extra])} could not be loaded")
        text, loaded, missing = built
        return text, _event(key, kind, loaded, missing)
    text = skills.build_skill_invocation_message(key, rest, task_id=task_id, runtime_note=_NOTE)
    if not text:
        raise ValueError(f"skill {key} could not be loaded")
    name = str(skills.get_skill_commands().get(key, {}).get("name") or key[1:])
    return text, _event(key, kind, [name], [])
