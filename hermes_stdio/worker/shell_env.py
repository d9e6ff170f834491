"""A change to the profile's ``.env`` reaches the commands of a shell hermes
started before it.

hermes' local terminal keeps a shell's state between commands: before each one
it sources the saved state (``export -p`` of the shell's first command, saved
again after each), which sets every variable back to the value the shell had.
So a key saved after a session's shell started never reached its commands,
although hermes gives each command's process the worker's environment as it is
now (``env_refresh`` keeps that current).

Contract: ``install(local_environment, changes)`` wraps the class's
``init_session`` (which saves a new shell's first state) and ``_wrap_command``
(hermes' script around each command), once. ``changes(g)`` gives the
generation now and the ``.env`` names changed since generation ``g``
(``EnvRefresh.changed_since``, after a refresh). A shell records the
generation its first state was saved at; before each of its commands, the names
changed since it recorded are given the value the command's process has (what
hermes gives a command: not one it keeps from commands, such as a provider's
key) or unset when the process has none, after the saved state is sourced; the
shell then records the generation now, and its state saved after the command
holds them. A variable a command exported keeps its value until the ``.env``
changes that name again. Values pass through the process environment only:
the script names variables, never a value (a script is an argument, which any
user may read in the process table). It returns False and changes nothing when
the class lacks either method.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

GENERATION = "_hermes_stdio_env_generation"
WRAPPED = "hermes_stdio_env"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Changes = Callable[[int], tuple[int, list[str]]]


def keep(names: list[str]) -> str:
    """Shell lines, run before the saved state is sourced, that keep what the
    process was given of ``names``."""
    return "".join(f"__hs_set_{n}=${{{n}+1}}; __hs_val_{n}=${{{n}-}}\n" for n in names)


def restore(names: list[str]) -> str:
    """Shell lines, run after, that give ``names`` what ``keep`` kept."""
    return "".join(
        f'if [ -n "$__hs_set_{n}" ]; then export {n}="$__hs_val_{n}"; else unset {n}; fi;'
        f" unset __hs_set_{n} __hs_val_{n}\n"
        for n in names
    )


def install(local_environment: Any, changes: Changes) -> bool:
    init, wrap = (getattr(local_environment, n, None) for n in ("init_session", "_wrap_command"))
    if not callable(init) or not callable(wrap):
        return False
    if getattr(wrap, WRAPPED, False):
        return True

    def init_session(self: Any, *args: Any, **kwargs: Any) -> Any:
        setattr(self, GENERATION, changes(0)[0])  # before: a change meanwhile is given again
        return init(self, *args, **kwargs)

    def wrapped(self: Any, command: str, cwd: str) -> str:
        now, names = changes(getattr(self, GENERATION, 0))
        setattr(self, GENERATION, now)
        names = [n for n in names if _NAME.fullmatch(n)]
        if not names:
            return str(wrap(self, command, cwd))
        return keep(names) + str(wrap(self, restore(names) + command, cwd))

    setattr(wrapped, WRAPPED, True)
    local_environment.init_session = init_session
    local_environment._wrap_command = wrapped
    return True
