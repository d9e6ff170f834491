"""A profile's environment variables (``env/list``, ``env/set``, ``env/remove``),
through hermes' own credential functions.

Contract: ``EnvVars(hermes)``, with hermes' functions in ``HermesEnv``.
- ``listed()`` describes hermes' known variables in its order, then the other
  names the profile's ``.env`` sets, by name: where the worker's value comes
  from (the managed ``.env``, which wins; the profile's ``.env``; the
  environment), and the value itself only for a set variable hermes marks as
  no secret (an unknown one counts as a secret); ``describe(name)`` is one.
- ``set(name, value)`` saves the value as hermes saves a credential (its
  ``.env`` rewritten at once, config.yaml copies of the old value replaced, the
  worker's environment updated) and gives the variable now;
  ``remove(name)`` removes it from every store hermes keeps it in and says
  whether one held it. Refused, with nothing changed: ``ReadOnly`` when
  hermes' install is locked or the managed ``.env`` sets the name; ``Refused``
  (naming the param) when hermes refuses the name (not a variable name, or one
  on its deny list such as ``PATH``), or the value is over ``MAX_VALUE``
  characters, holds a NUL or a character that is not ASCII, or would not be
  read back as one value (hermes' reader splits a line of its own variable
  whose value holds another of its variables' ``NAME=``).
- A ``.env`` or ``config.yaml`` that is there but is not a regular file is never
  handed to hermes (a FIFO would hang its read): ``Unusable`` says which.
- ``unsavable(value)`` says why a value must not reach hermes' writer.
- Changes are made one at a time, across workers too (``config_file``'s lock
  on the profile's home). A value never reaches a log.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..protocol.env import EnvSource, EnvVarInfo
from ..transport.file_replace import flocked
from ..transport.profile_files import not_regular
from .config_file import ReadOnly, Unusable

# What hermes' .env functions open (its credential lifecycle edits config.yaml too).
_READ = (".env", "config.yaml")

MAX_VALUE = 65536


class Refused(Exception):
    """A name or value hermes refuses; ``field`` names the param."""

    def __init__(self, field: str, why: str) -> None:
        super().__init__(why)
        self.field = field


@dataclass(frozen=True)
class HermesEnv:
    home: Path
    known: Mapping[str, Mapping[str, Any]]
    dotenv: Callable[[], Mapping[str, str]]
    managed: Callable[[], Mapping[str, str]]
    read_only: Callable[[], str | None]
    check: Callable[[str], None]  # raises ValueError for a name hermes refuses
    entries: Callable[[str, str], int]  # how many variables hermes reads back from name=value
    save: Callable[[str, str], None]
    remove: Callable[[str], bool]
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)


class EnvVars:
    def __init__(self, hermes: HermesEnv) -> None:
        self.hermes = hermes

    def listed(self) -> list[EnvVarInfo]:
        self._readable()
        dotenv, managed = self.hermes.dotenv(), self.hermes.managed()
        others = sorted(set(dotenv) - set(self.hermes.known))
        return [self._info(n, dotenv, managed) for n in [*self.hermes.known, *others]]

    def describe(self, name: str) -> EnvVarInfo:
        return self._info(name, self.hermes.dotenv(), self.hermes.managed())

    def set(self, name: str, value: str) -> EnvVarInfo:
        if len(value) > MAX_VALUE:
            raise Refused("params.value", f"a value is at most {MAX_VALUE} characters")
        if (why := unsavable(value)) is not None:
            raise Refused("params.value", why)
        if self.hermes.entries(name, value.replace("\n", "").replace("\r", "")) != 1:
            raise Refused(
                "params.value",
                "hermes would read another of its variables' NAME= in this value as a"
                " variable of its own",
            )
        self._change(name, lambda: self.hermes.save(name, value))
        return self.describe(name)

    def remove(self, name: str) -> tuple[bool, EnvVarInfo]:
        removed = self._change(name, lambda: self.hermes.remove(name))
        return bool(removed), self.describe(name)

    def _readable(self) -> None:
        for name in _READ:
            if not_regular(self.hermes.home / name):
                raise Unusable("is not a regular file", name)

    def _change(self, name: str, change: Callable[[], object]) -> object:
        self._readable()
        locked = self.hermes.read_only()
        if locked is not None:
            raise ReadOnly(f"hermes' configuration is managed by {locked}")
        if name in self.hermes.managed():
            raise ReadOnly(f"{name} is set by the administrator's managed scope")
        try:
            self.hermes.check(name)
        except ValueError as exc:
            raise Refused("params.name", str(exc)) from exc
        with flocked(self.hermes.home):
            return change()

    def _info(self, name: str, dotenv: Mapping[str, str], managed: Mapping[str, str]) -> EnvVarInfo:
        known = self.hermes.known.get(name)
        source: EnvSource | None = None
        value: str | None = None
        if name in managed:
            source, value = "managed", managed[name]
        elif name in dotenv:
            source, value = "profile", dotenv[name]
        elif name in self.hermes.environ:
            source, value = "environment", self.hermes.environ[name]
        secret = known is None or bool(known.get("password", True))
        return EnvVarInfo(
            name=name,
            description=str(known.get("description") or "") if known else "",
            category=str(known["category"]) if known and known.get("category") else None,
            secret=secret,
            url=str(known["url"]) if known and known.get("url") else None,
            advanced=bool(known.get("advanced", False)) if known else False,
            source=source,
            value=value if source is not None and not secret else None,
        )


def unsavable(value: str) -> str | None:
    """Why hermes' ``.env`` writer must not be given ``value`` (None when it may):
    a NUL, which no environment can hold (hermes would fail after writing it), or
    a character that is not ASCII, which hermes would strip and print on stderr
    (a secret's characters). Never the value itself."""
    if "\0" in value:
        return "a value cannot hold a NUL character"
    if not value.isascii():
        first = next(i for i, ch in enumerate(value) if not ch.isascii())
        return f"a value is ASCII only (hermes sends it in HTTP headers): position {first}"
    return None
