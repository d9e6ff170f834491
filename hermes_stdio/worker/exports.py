"""A stored session rendered by hermes' own exporters (``session/export``).

Contract: ``render(data, fmt, redact)`` takes what hermes'
``SessionDB.export_session`` (or ``export_session_lineage``) gives and returns
``(content, message_count)``: ``markdown`` through hermes'
``render_session_markdown`` (its ``.md`` export: front matter, the messages,
its verification block), ``html`` through ``generate_html_export`` (its
self-contained page), ``json`` as that dict itself, one JSON document. With
``redact``, hermes' ``redact_session_data`` runs first, in its force mode:
whatever the profile's ``security.redact_secrets`` says, as ``hermes sessions
export --redact`` does.
"""

from __future__ import annotations

import json
from typing import Any

from ..wire.jsonrpc import to_jsonable


def render(data: dict[str, Any], fmt: str, redact: bool) -> tuple[str, int]:
    if redact:
        from hermes_cli.session_export_md import redact_session_data

        data = redact_session_data(data)
    count = len(data.get("messages") or [])
    if fmt == "markdown":
        from hermes_cli.session_export_md import render_session_markdown

        return render_session_markdown(data, fmt="md"), count
    if fmt == "html":
        from hermes_cli.session_export_html import generate_html_export

        return generate_html_export(data), count
    # Strict JSON: what it cannot carry (a NaN, bytes SQLite gave) becomes a string.
    return json.dumps(to_jsonable(data), ensure_ascii=False, allow_nan=False), count
