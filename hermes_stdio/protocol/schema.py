"""Export the protocol as one JSON Schema document (the source for client types).

Contract: ``build_schema()`` is deterministic. Every record type is under
``$defs``; ``x-methods`` / ``x-notifications`` map each wire method to its
params (and result) schema (a notification's ``runScoped`` says it belongs to
one run: runId, sessionId and seq first); ``x-errors`` maps each error ``data.type`` to its
code. ``SCHEMA_PATH`` is the checked-in copy; a test regenerates and diffs it
(``hermes-stdio schema --write`` refreshes it). A field with a default is
optional only in records a host sends; in records only the server sends it is
always present, so it is required there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..wire.errors import ErrorType
from .methods import HOST_METHODS, WORKER_METHODS
from .model import schema_of
from .notifications import SERVER_NOTIFICATIONS, WORKER_NOTIFICATIONS
from .types import PROTOCOL_VERSION

SCHEMA_PATH = Path(__file__).with_name("schema.json")


def build_schema() -> dict[str, Any]:
    defs: dict[str, Any] = {}
    methods: dict[str, Any] = {}
    for m in HOST_METHODS.values():
        entry: dict[str, Any] = {
            "direction": "hostToServer",
            "kind": "notification" if m.notification else "request",
            "route": m.route,
            "description": m.doc,
            "params": schema_of(m.params, defs),
        }
        if not m.notification:
            entry["result"] = schema_of(m.result, defs)
        methods[m.name] = entry
    notifications = {
        n.name: {
            "direction": "serverToHost",
            "runScoped": n.run_scoped,
            "description": n.doc,
            "params": schema_of(n.params, defs),
        }
        for n in SERVER_NOTIFICATIONS.values()
    }
    internal = {
        **{
            m.name: {
                "params": schema_of(m.params, defs),
                **({} if m.notification else {"result": schema_of(m.result, defs)}),
                "description": m.doc,
            }
            for m in WORKER_METHODS.values()
        },
        **{
            n.name: {"params": schema_of(n.params, defs), "description": n.doc}
            for n in WORKER_NOTIFICATIONS.values()
        },
    }
    _require_output_fields(
        defs, [m.params for m in (*HOST_METHODS.values(), *WORKER_METHODS.values())]
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://hermes-stdio.invalid/protocol/v{PROTOCOL_VERSION}.json",
        "title": "hermes-stdio protocol",
        "description": "Types of the hermes-stdio JSON-RPC protocol; see protocol.md.",
        "x-protocolVersion": PROTOCOL_VERSION,
        "x-methods": methods,
        "x-notifications": notifications,
        "x-workerMethods": internal,
        "x-errors": {kind.type: kind.code for kind in ErrorType},
        "$defs": dict(sorted(defs.items())),
    }


def _require_output_fields(defs: dict[str, Any], inputs: list[Any]) -> None:
    """A default lets a sender leave a field out, but only hosts (and the supervisor)
    send params; a record that is only ever sent by the server always carries
    every field, so all of them are required there."""
    sent_in: set[str] = set()
    todo = [schema_of(tp, defs) for tp in inputs]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                if name not in sent_in:
                    sent_in.add(name)
                    todo.append(defs[name])
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    for name, record in defs.items():
        if name not in sent_in and "properties" in record:
            record["required"] = list(record["properties"])


def render_schema() -> str:
    return json.dumps(build_schema(), indent=2, sort_keys=False) + "\n"
