"""A change to a profile's ``config.yaml`` worked out from what the file says now,
written through ``config_file`` (its comments kept, its rules and lock), for the
requests that change one setting of hermes' for a host (``skill/setEnabled``,
``toolset/setEnabled``).

Contract:
- ``change(config, edits_for, check)`` reads the file, asks
  ``edits_for(settings)`` (a copy of the file's mapping) for the edits to make,
  lets ``check(after)`` see the mapping they would make (``applied``) and raise
  to refuse it, and writes them unless there are none, giving the file's
  mapping as it is then. A write that races
  another writer (the file's version changed between the read and the write)
  reads again and retries, ``ATTEMPTS`` times in all, then raises
  ``config_file.Conflict``; whatever else ``read``, ``write`` or ``edits_for``
  raises is raised.
- ``edits_between(before, after)`` are the edits that turn mapping ``before``
  into ``after``: a changed or new value set where it changed (a mapping in both
  compared key by key), a key ``after`` lacks removed. So hermes' own functions
  that change a config mapping in memory can say what to write.
- ``managed_keeps(name, enabled, key_path)`` is the ``config_file.ReadOnly`` a
  ``check`` raises when the administrator's managed scope would leave ``name``
  as ``enabled`` says, whatever the file says.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from .config_file import ConfigFile, Conflict, Edit, ReadOnly

ATTEMPTS = 3


def change(
    config: ConfigFile,
    edits_for: Callable[[dict[str, Any]], Sequence[Edit]],
    check: Callable[[dict[str, Any]], None] = lambda _after: None,
) -> dict[str, Any]:
    for attempt in range(ATTEMPTS):
        snapshot = config.read()
        edits = edits_for(copy.deepcopy(snapshot.config))
        check(applied(snapshot.config, edits))
        if not edits:
            return snapshot.config
        try:
            return config.write(edits, snapshot.version)[0].config
        except Conflict as exc:
            if attempt == ATTEMPTS - 1:
                why = "config.yaml kept changing while this change was made: try again"
                raise Conflict(exc.current, why) from exc
    raise AssertionError("unreachable")


def edits_between(
    before: dict[str, Any], after: dict[str, Any], above: tuple[str, ...] = ()
) -> list[Edit]:
    edits: list[Edit] = []
    for key in [*before, *(k for k in after if k not in before)]:
        path = [*above, str(key)]
        if key not in after:
            edits.append((path, None))
            continue
        old, new = before.get(key), after[key]
        if key in before and old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict):
            edits.extend(edits_between(old, new, tuple(path)))
        else:
            edits.append((path, new))
    return edits


def applied(settings: dict[str, Any], edits: Sequence[Edit]) -> dict[str, Any]:
    """A copy of ``settings`` with ``edits`` made (None removes a key)."""
    after = copy.deepcopy(settings)
    for path, value in edits:
        *above, last = path
        node = after
        for key in above:
            node = node.setdefault(key, {})
        if value is None:
            node.pop(last, None)
        else:
            node[last] = copy.deepcopy(value)
    return after


def managed_keeps(name: str, enabled: bool, key_path: list[str]) -> ReadOnly:
    state = "enabled" if enabled else "disabled"
    return ReadOnly(f"the administrator's managed scope keeps {name} {state}", key_path)
