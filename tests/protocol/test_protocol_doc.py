"""protocol.md is the contract: everything that can go on the wire is documented there."""

from __future__ import annotations

import inspect
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
from hermes_stdio.protocol.schema import build_schema
from hermes_stdio.wire import ErrorType
from hermes_stdio.worker import callbacks

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


def test_every_run_event_type_the_worker_emits_is_documented() -> None:
    source = inspect.getsource(callbacks.agent_callbacks)
    emitted = set(re.findall(r'sink\.event\(\s*"([a-z._]+)"', source))
    assert emitted
    assert {t for t in emitted if f"| `{t}` |" not in DOC} == set()


def test_the_initialize_example_lists_every_method_and_notification_in_table_order() -> None:
    line = next(
        ln for ln in DOC.splitlines() if ln.startswith("←") and '"capabilities":{"methods"' in ln
    )
    capabilities = json.loads(line[1:].strip())["result"]["capabilities"]
    assert capabilities["methods"] == list(HOST_METHODS)
    assert capabilities["notifications"] == list(SERVER_NOTIFICATIONS)
