"""protocol.md is the contract: everything that can go on the wire is documented there."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hermes_stdio.protocol import (
    HOST_METHODS,
    SERVER_NOTIFICATIONS,
    WORKER_METHODS,
    WORKER_NOTIFICATIONS,
)
from hermes_stdio.protocol.events import EVENT_TYPES
from hermes_stdio.protocol.model import fields_of
from hermes_stdio.protocol.schema import build_schema
from hermes_stdio.wire import ErrorType

DOC = (Path(__file__).resolve().parents[2] / "protocol.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "name", [*HOST_METHODS, *SERVER_NOTIFICATIONS, *WORKER_METHODS, *WORKER_NOTIFICATIONS]
)
def test_every_method_and_notification_is_documented(name: str) -> None:
    assert f"`{name}`" in DOC


def test_every_field_of_every_protocol_type_is_documented() -> None:
    missing = [
        f"{type_name}.{field}"
        for type_name, spec in build_schema()["$defs"].items()
        for field in spec.get("properties", {})
        if f"`{field}`" not in DOC
    ]
    assert missing == []


@pytest.mark.parametrize("kind", list(ErrorType))
def test_every_error_code_is_documented_with_its_type(kind: ErrorType) -> None:
    assert re.search(rf"\| {kind.code} \| `{kind.type}` \|", DOC), kind


def event_table() -> dict[str, str]:
    """The rows of protocol.md's ``event.type`` table, by type."""
    start = DOC.index("| `event.type` |")
    table = DOC[start : DOC.index("\n\n", start)]
    return dict(re.findall(r"^\| `([a-zA-Z._]+)` \|(.*)$", table, re.M)[1:])  # after the header


@pytest.mark.parametrize("event_type", list(EVENT_TYPES))
def test_every_run_event_type_has_a_row_naming_each_of_its_fields(event_type: str) -> None:
    row = event_table().get(event_type)
    assert row is not None, event_type
    fields = [f.wire for f in fields_of(EVENT_TYPES[event_type]) if f.wire != "type"]
    assert [f for f in fields if f"`{f}`" not in row] == []


def test_the_event_table_has_no_row_for_a_type_the_protocol_does_not_define() -> None:
    assert set(event_table()) == set(EVENT_TYPES)


def test_the_initialize_example_lists_every_method_notification_and_event_in_table_order() -> None:
    line = next(
        ln for ln in DOC.splitlines() if ln.startswith("←") and '"capabilities":{"methods"' in ln
    )
    capabilities = json.loads(line[1:].strip())["result"]["capabilities"]
    assert capabilities["methods"] == list(HOST_METHODS)
    assert capabilities["notifications"] == list(SERVER_NOTIFICATIONS)
    assert capabilities["runEvents"] == list(EVENT_TYPES)
