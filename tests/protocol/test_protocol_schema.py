"""The method table and the checked-in JSON Schema agree with each other and the code."""

from __future__ import annotations

import json

from hermes_stdio.protocol import (
    HOST_METHODS,
    PROTOCOL_VERSION,
    RUN_NOTIFICATIONS,
    SERVER_NOTIFICATIONS,
    WORKER_METHODS,
    WORKER_NOTIFICATIONS,
)
from hermes_stdio.protocol.model import fields_of
from hermes_stdio.protocol.record import Record
from hermes_stdio.protocol.schema import SCHEMA_PATH, build_schema, render_schema


def test_the_checked_in_schema_is_current():
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render_schema(), (
        "schema.json is stale: run `hermes-stdio schema --write`"
    )


def test_rendering_the_schema_is_deterministic():
    assert render_schema() == render_schema()
    assert json.loads(render_schema()) == build_schema()


def test_every_host_method_is_in_the_schema_with_its_kind_and_route():
    methods = build_schema()["x-methods"]
    assert set(methods) == set(HOST_METHODS)
    for name, m in HOST_METHODS.items():
        entry = methods[name]
        assert entry["kind"] == ("notification" if m.notification else "request"), name
        assert entry["route"] == m.route
        assert entry["direction"] == "hostToServer"
        assert ("result" in entry) == (not m.notification), name


def test_every_server_notification_is_in_the_schema():
    notes = build_schema()["x-notifications"]
    assert set(notes) == set(SERVER_NOTIFICATIONS)
    assert all(n["direction"] == "serverToHost" for n in notes.values())


def test_worker_methods_and_notifications_are_in_the_schema():
    internal = build_schema()["x-workerMethods"]
    assert set(internal) == set(WORKER_METHODS) | set(WORKER_NOTIFICATIONS)


def test_every_referenced_record_is_defined():
    schema = build_schema()
    text = json.dumps(schema)
    refs = {part.split('"')[0] for part in text.split('"$ref": "#/$defs/')[1:]}
    assert refs
    assert refs <= set(schema["$defs"])


def test_record_schemas_list_camel_case_properties_and_forbid_extras():
    defs = build_schema()["$defs"]
    for name in ("RunStartParams", "RunCompletedNotification", "SessionInfo"):
        record = defs[name]
        assert record["additionalProperties"] is False
        assert "conversation_history" not in record["properties"]
    assert "conversationHistory" in defs["RunStartParams"]["properties"]
    assert defs["RunStartParams"]["required"] == ["message"]


def test_the_schema_declares_the_protocol_version():
    schema = build_schema()
    assert schema["x-protocolVersion"] == PROTOCOL_VERSION == 1


def test_method_params_and_results_are_records_or_null():
    for m in [*HOST_METHODS.values(), *WORKER_METHODS.values()]:
        assert issubclass(m.params, Record), m.name
        if m.notification:
            assert m.result is None, m.name
        else:
            assert m.result is type(None) or issubclass(m.result, Record), m.name


def test_run_scoped_notifications_all_carry_run_id_session_id_and_seq():
    assert {
        "run/started",
        "run/delta",
        "run/event",
        "run/completed",
        "approval/requested",
        "approval/resolved",
        "clarify/requested",
        "clarify/resolved",
        "compression/requested",
        "compression/resolved",
        "sudo/requested",
        "sudo/resolved",
        "secret/requested",
        "secret/resolved",
    } == RUN_NOTIFICATIONS
    for name in RUN_NOTIFICATIONS:
        wire = [f.wire for f in fields_of(SERVER_NOTIFICATIONS[name].params)]
        assert wire[:3] == ["runId", "sessionId", "seq"], name


def test_every_integer_in_the_schema_carries_the_range_decoding_enforces():
    from hermes_stdio.protocol.model import MAX_SAFE_INTEGER

    found: list[dict[str, object]] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if node.get("type") == "integer":
                found.append(node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(build_schema())
    assert found
    for node in found:
        assert node["minimum"] == -MAX_SAFE_INTEGER and node["maximum"] == MAX_SAFE_INTEGER


def test_what_only_the_server_sends_requires_every_field_and_params_keep_defaults_optional():
    defs = build_schema()["$defs"]
    for name in ("RunOutput", "SupervisorStatusResult", "WorkerInfo", "McpServerInfo"):
        assert defs[name]["required"] == list(defs[name]["properties"]), name
    run_start = defs["RunStartParams"]
    assert "profile" in run_start["properties"] and "profile" not in run_start["required"]
