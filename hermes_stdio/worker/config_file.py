"""A profile's ``config.yaml``, read and changed for a host (``config/read``,
``config/write``) under hermes' rules for ``hermes config set``, but keeping the
file's comments, key order and quoting (hermes' own write drops them).

Contract: ``ConfigFile(path, rules)``.
- ``read()`` gives a ``Snapshot``: the file's mapping as hermes parses it
  (``transport.profile_files``; ``{}`` without a file) and its version, the
  SHA-256 of its bytes (None without a file). A file that is there but is not
  regular, or that hermes could not use, raises ``Unusable``.
- ``write(edits, expected)`` makes ``(key_path, value)`` edits in order (a value
  of None removes the key) and replaces the file at once: a temporary file in the
  real file's directory (through a symlink, which stays), fsynced, then renamed
  over it, with the file's mode (0600 for a new one). Nothing is written when:
  ``expected`` is given and the file's version differs (``Conflict``); the file
  is there and hermes could not use it, so a write would drop its settings
  (``Unusable``); ``rules`` refuse it (``ReadOnly``: hermes' install is locked,
  or a key is at, above or below one the managed scope pins); or an edit is
  wrong (``BadEdit``: a key below a value that is not a mapping, a secret
  hermes keeps in ``.env``, or a setting nesting over ``MAX_DEPTH`` levels).
  The text written is parsed again as hermes parses it and must give exactly
  the mapping intended; when the comment-keeping round trip (ruamel.yaml)
  cannot give that, the mapping is written plainly (comments lost) rather than
  a file that means something else.
- Writes are made one at a time, in a process and across processes, by
  ``flock`` on the file's directory (``transport.file_replace.flocked``).
- ``unknown_key(validate)`` turns hermes' key check into ``Rules.unknown``.
- ``jsonable(value)`` is a parsed value in JSON terms: a date or a key that is
  not a string becomes a string.
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ..transport.file_replace import flocked, replace_file
from ..transport.profile_files import parse_yaml, read_regular

Edit = tuple[Sequence[str], Any]

# Far below what hermes' YAML reader (libyaml, recursive) could not follow, and
# than any setting hermes has.
MAX_DEPTH = 64


class Snapshot(NamedTuple):
    config: dict[str, Any]
    version: str | None


class Unusable(Exception):
    """The file is there but hermes could not use it; ``str()`` says why."""

    def __init__(self, why: str, file: str = "config.yaml") -> None:
        super().__init__(why)
        self.file = file


class Conflict(Exception):
    def __init__(self, current: str | None, why: str = "config.yaml changed since that version"):
        super().__init__(why)
        self.current = current


class ReadOnly(Exception):
    def __init__(self, why: str, key_path: list[str] | None = None) -> None:
        super().__init__(why)
        self.key_path = key_path


class BadEdit(Exception):
    def __init__(self, index: int, why: str) -> None:
        super().__init__(why)
        self.index = index


@dataclass(frozen=True)
class Rules:
    """hermes' rules, injected: its package-manager lock (the manager's name, or
    None), its default settings, its managed scope's settings, the keys it keeps
    in ``.env``, and what it says of a dotted key it does not know (None for one
    it knows); and its config cache's lock and invalidation."""

    read_only: Callable[[], str | None] = lambda: None
    defaults: Callable[[], dict[str, Any]] = dict
    managed: Callable[[], dict[str, Any]] = dict
    secret_key: Callable[[str], bool] = lambda _key: False
    unknown: Callable[[str], str | None] = lambda _key: None
    # Held while the file is replaced, then told: hermes caches what it parsed by
    # the file's (mtime, size), which a write within one clock tick keeps.
    guard: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext
    written: Callable[[], None] = lambda: None


@dataclass
class ConfigFile:
    path: Path
    rules: Rules = field(default_factory=Rules)

    def read(self) -> Snapshot:
        return self._read()[0]

    def _read(self) -> tuple[Snapshot, bytes | None]:
        raw = read_regular(self.path)
        if raw is None:
            if self.path.exists():
                raise Unusable("is not a regular file")
            return Snapshot({}, None), None
        data, problem = parse_yaml(raw)
        if problem is not None:
            raise Unusable(problem)
        return Snapshot(data, hashlib.sha256(raw).hexdigest()), raw

    def write(self, edits: Sequence[Edit], expected: str | None) -> tuple[Snapshot, list[str]]:
        """The file's new snapshot, and hermes' warnings for keys it does not know."""
        locked = self.rules.read_only()
        if locked is not None:
            raise ReadOnly(f"hermes' configuration is managed by {locked}")
        self._check(edits)
        real = Path(os.path.realpath(self.path))
        with flocked(real.parent):
            before, raw = self._read()
            if expected is not None and expected != before.version:
                raise Conflict(before.version)
            intended = copy.deepcopy(before.config)
            for index, (key_path, value) in enumerate(edits):
                _apply(intended, key_path, value, index, dict)
            data = _round_trip(raw, edits, intended).encode("utf-8")
            with self.rules.guard():
                replace_file(real, data, 0o600)  # hermes keeps config.yaml private
                self.rules.written()
        after = Snapshot(intended, hashlib.sha256(data).hexdigest())
        warnings = [
            w
            for p, value in edits
            if value is not None and (w := self.rules.unknown(".".join(p))) is not None
        ]
        return after, warnings

    def _check(self, edits: Sequence[Edit]) -> None:
        pinned = list(_leaves(self.rules.managed()))
        for index, (key_path, value) in enumerate(edits):
            if not key_path or any(not key for key in key_path):
                raise BadEdit(index, "a key path is one or more non-empty keys")
            if len(key_path) + _depth(value) > MAX_DEPTH:
                raise BadEdit(index, f"a setting may nest at most {MAX_DEPTH} levels deep")
            if len(key_path) == 1 and self.rules.secret_key(key_path[0]):
                raise BadEdit(index, f"{key_path[0]} is a secret: hermes keeps it in .env")
            for leaf in pinned:
                n = min(len(leaf), len(key_path))
                if tuple(key_path[:n]) == leaf[:n]:
                    raise ReadOnly(
                        f"{'.'.join(leaf)} is pinned by the administrator's managed scope",
                        list(key_path),
                    )


def jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, float) and (value != value or abs(value) == float("inf")):
        return str(value)  # JSON has no NaN or infinity
    return value


def unknown_key(validate: Callable[[str], tuple[bool, str | None]]) -> Callable[[str], str | None]:
    """hermes' word on a dotted key it does not know, as its ``config set`` warns."""

    def unknown(key: str) -> str | None:
        known, suggestion = validate(key)
        if known:
            return None
        hint = f"; did you mean {suggestion}?" if suggestion else ""
        return f"{key} is not a setting hermes knows{hint}"

    return unknown


def _depth(value: Any) -> int:
    """How deeply ``value`` nests (a scalar: 0), without recursion: a value from the
    wire may nest a thousand levels."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return deepest


def _leaves(tree: dict[str, Any], above: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, (*above, str(key)))
        else:
            yield (*above, str(key))


def _apply(
    doc: dict[str, Any], key_path: Sequence[str], value: Any, index: int, new_map: Callable[[], Any]
) -> None:
    node = doc
    for depth, key in enumerate(key_path[:-1]):
        child = node.get(key)
        if child is None:
            if value is None:
                return  # nothing there to remove
            child = node[key] = new_map()
        elif not isinstance(child, dict):
            raise BadEdit(index, f"{'.'.join(key_path[: depth + 1])} is not a mapping")
        node = child
    if value is None:
        node.pop(key_path[-1], None)
    else:
        node[key_path[-1]] = copy.deepcopy(value)


def _round_trip(raw: bytes | None, edits: Sequence[Edit], intended: dict[str, Any]) -> str:
    """The new file's text: the old one with the edits (comments kept) when ruamel
    can give exactly ``intended``, else ``intended`` written plainly. Each is tried
    with characters beyond ASCII as they are, then escaped: a YAML 1.1 reader takes
    some (NEL, U+0085) for a line break, which ruamel's YAML 1.2 and PyYAML's
    unicode output write bare."""
    writers: list[Callable[[bool], str]] = [
        lambda bare: _ruamel_text(raw, edits, bare),
        lambda bare: _plain_text(intended, bare),
    ]
    for write in writers:
        for bare in (True, False):
            try:
                text = write(bare)
            except Exception:  # ruamel refuses what libyaml takes (a tab after a colon)
                continue
            if parse_yaml(text.encode("utf-8")) == (intended, None):
                return text
    raise RuntimeError("config.yaml's new settings do not survive YAML")


def _ruamel_text(raw: bytes | None, edits: Sequence[Edit], bare: bool) -> str:
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    rt.allow_unicode = bare
    rt.width = 4096  # a long value stays on its line
    rt.indent(mapping=2, sequence=4, offset=2)  # as hermes' own writes
    rt.representer.add_representer(float, _yaml11_float)  # a new value's; the file's keep theirs
    doc = rt.load(raw.decode("utf-8")) if raw else None
    if doc is None:
        doc = CommentedMap()
    for index, (key_path, value) in enumerate(edits):
        _apply(doc, key_path, _quoted(value), index, CommentedMap)
    out = io.StringIO()
    rt.dump(doc, out)
    return out.getvalue()


def _quoted(value: Any) -> Any:
    """``value`` with each string that a YAML 1.1 reader (libyaml, hermes) would
    take for something else (``yes``, ``0o17``, ``1_000``) quoted: ruamel writes
    YAML 1.2, where those are plain strings."""
    import yaml
    from ruamel.yaml.scalarstring import SingleQuotedScalarString

    if isinstance(value, dict):
        return {k: _quoted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_quoted(v) for v in value]
    if isinstance(value, str):
        tag = yaml.resolver.Resolver().resolve(  # type: ignore[no-untyped-call]
            yaml.ScalarNode, value, (True, False)
        )
        if tag != "tag:yaml.org,2002:str":
            return SingleQuotedScalarString(value)
    return value


def _yaml11_float(representer: Any, value: float) -> Any:
    """A float as YAML 1.1 reads one (PyYAML's way): ``1e-05`` is a string there,
    ``1.0e-05`` a float."""
    text = repr(value).lower()
    if "." not in text and "e" in text:
        text = text.replace("e", ".0e", 1)
    return representer.represent_scalar("tag:yaml.org,2002:float", text)


def _plain_text(intended: dict[str, Any], bare: bool) -> str:
    import yaml

    class Dumper(yaml.SafeDumper):
        def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
            super().increase_indent(flow, False)  # lists indented, as hermes writes them

    return yaml.dump(
        intended, Dumper=Dumper, sort_keys=False, allow_unicode=bare, default_flow_style=False
    )
