"""``@`` references in a turn's message (``@file:path``, ``@folder:path``,
``@diff``, ``@staged``, ``@git:N``, ``@url:address``), expanded the way hermes'
CLI and TUI expand them.

Contract: ``expand(hermes_refs, message, cwd, context_length)`` takes hermes'
``agent.context_references`` module. A message without references gives None
(nothing is read). Otherwise hermes reads what they name, relative to ``cwd``
and refusing anything outside it, and the result is the message to send (the
references replaced by an attached-context section) and the
``references.expanded`` event: the ``references`` as typed, hermes'
``warnings``, ``injectedTokens`` and ``blocked``: hermes refuses to attach
more than half the model's context window, and then nothing is attached.
"""

from __future__ import annotations

from typing import Any

from ..protocol import events as ev


def expand(
    hermes_refs: Any, message: str, cwd: str, context_length: int
) -> tuple[str, ev.ReferencesExpandedEvent] | None:
    if "@" not in message or not hermes_refs.parse_context_references(message):
        return None
    found = hermes_refs.preprocess_context_references(
        message, cwd=cwd, allowed_root=cwd, context_length=context_length
    )
    event = ev.ReferencesExpandedEvent(
        references=[str(ref.raw) for ref in found.references],
        warnings=[str(w) for w in found.warnings],
        injected_tokens=int(found.injected_tokens),
        blocked=bool(found.blocked),
    )
    return str(found.message), event
