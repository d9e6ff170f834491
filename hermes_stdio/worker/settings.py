"""What a host chose for a session, kept with it in the profile's database.

A worker forgets a session when it exits (idle, restarted, killed) or unloads
it; without this a conversation resumed later would quietly get back the
tools a host left out, or lose its model and instructions.

Contract (``db`` is hermes' ``SessionDB``):
- ``Settings``: the choices a session keeps for later turns: ``model`` and
  ``provider`` (``session/switchModel``, a new session's ``run/start``),
  ``instructions``, ``reasoning_effort`` and ``disabled_toolsets``
  (``run/start``). ``of(session)`` reads them off a ``Session``.
- ``stored(db, session_id)``: the settings stored with a session (all None
  when none are, or the record is unreadable). A compression continuation
  (hermes' newer id for the same conversation, as its CLI lists it) with none
  of its own has those of the row it continues, so a host resuming by that
  id keeps them.
- ``recall(db, session, usable)``: once per ``Session`` object, gives it the
  stored settings no request has chosen since it was made (``Session.choose``);
  a stored model only if ``usable(model, provider)`` still resolves it (it
  returns the provider; a model it refuses is not used, and logged, but stays
  stored until a request chooses one: a provider can come back).
- ``keep(db, session)``: stores the session's settings when they differ from
  what it last stored or recalled (one write per change, none per turn).
- ``copy(db, source, target)``: a fork starts with its parent's settings.
- ``forget(db, session_id)``: removes what is kept for a session beside its
  rows, for ``session/delete``: these settings, its compression choice, and
  hermes' own standing goal (``goal:<id>``, which hermes' delete leaves, so a
  new conversation under the id would inherit it).
Stored in hermes' ``state_meta`` table under ``hermes-stdio.settings:<id>``
as JSON with the wire's field names; hermes itself never reads it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args

from ..protocol import types as t
from ..transport.log import log
from .state import Session

_EFFORTS = frozenset(get_args(t.ReasoningEffort))


def _key(session_id: str) -> str:
    return f"hermes-stdio.settings:{session_id}"


@dataclass(frozen=True)
class Settings:
    model: str | None = None
    provider: str | None = None
    instructions: str | None = None
    reasoning_effort: t.ReasoningEffort | None = None
    disabled_toolsets: tuple[str, ...] | None = None

    def to_json(self) -> str:
        record = {
            "model": self.model,
            "provider": self.provider,
            "instructions": self.instructions,
            "reasoningEffort": self.reasoning_effort,
            "disabledToolsets": list(self.disabled_toolsets) if self.disabled_toolsets else None,
        }
        return json.dumps({k: v for k, v in record.items() if v is not None})

    @classmethod
    def from_json(cls, raw: Any) -> Settings:
        """What a stored record holds; a field of the wrong shape is left out."""
        try:
            record = json.loads(raw) if isinstance(raw, str) and raw else {}
        except ValueError:
            record = {}
        if not isinstance(record, dict):
            return cls()

        def text(name: str) -> str | None:
            value = record.get(name)
            return value if isinstance(value, str) and value else None

        effort = record.get("reasoningEffort")
        names = record.get("disabledToolsets")
        toolsets = None
        if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
            toolsets = tuple(sorted(set(names)))
        return cls(
            model=text("model"),
            provider=text("provider") if text("model") else None,
            instructions=text("instructions"),
            reasoning_effort=effort if effort in _EFFORTS else None,
            disabled_toolsets=toolsets,
        )


def of(session: Session) -> Settings:
    model, provider = session.chosen_model or (None, None)
    return Settings(
        model,
        provider,
        session.instructions,
        session.reasoning_effort,
        session.disabled_toolsets,
    )


def stored(db: Any, session_id: str) -> Settings:
    current: str | None = session_id
    for _ in range(_DEPTH):
        if current is None:
            break
        raw = db.get_meta(_key(current))
        if raw:
            return Settings.from_json(raw)
        current = _continued_from(db, current)
    return Settings()


_DEPTH = 32  # hermes' own bound on a compression chain it walks back


def _continued_from(db: Any, session_id: str) -> str | None:
    """The row a compression continuation carries on from, if ``session_id`` is one."""
    row = db.get_session(session_id)
    parent_id = row.get("parent_session_id") if row else None
    parent = db.get_session(parent_id) if parent_id else None
    if not parent or parent.get("end_reason") != "compression":
        return None
    try:
        marks = json.loads(row.get("model_config") or "{}")
    except ValueError:
        marks = {}
    if isinstance(marks, dict) and ("_branched_from" in marks or "_delegate_from" in marks):
        return None  # a branch or a subagent is a conversation of its own
    return str(parent_id)


def recall(db: Any, session: Session, usable: Callable[[str, str | None], str | None]) -> None:
    if session.settings_recalled:
        return
    kept = stored(db, session.session_id)
    provider = kept.provider
    resolves = True
    if kept.model is not None and "model" not in session.settings_chosen:
        try:
            provider = usable(kept.model, kept.provider)
        except Exception as exc:  # e.g. its provider left the profile's config, for now
            log(f"worker: not restoring model {kept.model!r} of {session.session_id}: {exc}")
            resolves = False
    with session.settings_lock:
        if session.settings_recalled:
            return
        session.settings_recalled = True
        session.settings_stored = kept
        chosen = session.settings_chosen
        for name in ("instructions", "reasoning_effort", "disabled_toolsets"):
            value = getattr(kept, name)
            if value is not None and name not in chosen:
                setattr(session, name, value)
        if kept.model is not None and "model" not in chosen:
            session.chosen_model = (kept.model, provider)  # stored on, used or not
            if resolves:
                session.model, session.provider = kept.model, provider
                session.switch_pending = session.agent is not None


def keep(db: Any, session: Session) -> None:
    with session.settings_saving:  # the last write is the newest settings
        with session.settings_lock:
            now = of(session)
        if now != session.settings_stored:
            db.set_meta(_key(session.session_id), now.to_json())
            session.settings_stored = now


def copy(db: Any, source: str, target: str) -> None:
    raw = db.get_meta(_key(source))
    if raw:
        db.set_meta(_key(target), raw)


def forget(db: Any, session_id: str) -> None:
    keys = (_key(session_id), f"hermes-stdio.compression:{session_id}", f"goal:{session_id}")
    write = getattr(db, "_execute_write", None)
    if write is None:  # no way to delete a key: leave empty records
        for key in keys:
            if db.get_meta(key) is not None:
                db.set_meta(key, "")
        return

    def delete(conn: Any) -> None:
        conn.executemany("DELETE FROM state_meta WHERE key = ?", [(key,) for key in keys])

    write(delete)
