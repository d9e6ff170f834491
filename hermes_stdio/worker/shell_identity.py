"""A session's commands run under its own identity, not under the one hermes'
saved shell state holds.

hermes gives each command's process the calling turn's session variables
(``HERMES_SESSION_ID``, ``HERMES_SESSION_KEY``, ... from its session context),
and drops the ones the turn has not bound, so that no other session's value
leaks in (its "cross-session leak guard"). But its local terminal then sources
the saved shell state (``export -p`` of the first command's shell, saved again
after each command), which the sessions of a worker share, and which sets
those variables back to the values of whichever session saved it last:
session B's commands ran with session A's ``HERMES_SESSION_ID`` and key.

Contract: ``install(local_environment, inject, names)`` wraps the class's
``_wrap_command`` (hermes' script around each command, run after the saved
state is sourced), once. Each variable in ``names`` that ``inject`` (hermes'
``_inject_session_context_env``, which edits a process environment) sets for
the calling thread is exported with that value at the start of the command,
and each it drops is unset; one it leaves alone is left alone. So the command
sees what hermes gives its process. It returns False and changes nothing when
the class has no ``_wrap_command``. ``install_hermes()`` does it on hermes'
``LocalEnvironment`` with its injector and the variables its session context
manages, and returns False (changing nothing) when those are not there.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable
from typing import Any

_UNTOUCHED = "\0untouched"  # no value a process environment can hold
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def prelude(inject: Callable[[dict[str, str]], None], names: Iterable[str]) -> str:
    """Shell lines that give the variables ``names`` the values ``inject`` gives a
    process environment on this thread."""
    probe = dict.fromkeys(names, _UNTOUCHED)
    inject(probe)
    lines: list[str] = []
    for name in sorted(set(names)):
        if name not in probe:
            lines.append(f"unset {name}")
        elif probe[name] != _UNTOUCHED:
            lines.append(f"export {name}={shlex.quote(probe[name])}")
    return "".join(line + "\n" for line in lines)


def install(
    local_environment: Any, inject: Callable[[dict[str, str]], None], names: Iterable[str]
) -> bool:
    wrap = getattr(local_environment, "_wrap_command", None)
    if not callable(wrap):
        return False
    if getattr(wrap, "identified", False):
        return True
    known = tuple(n for n in names if _NAME.fullmatch(n))

    def wrapped(self: Any, command: str, cwd: str) -> str:
        return str(wrap(self, prelude(inject, known) + command, cwd))

    wrapped.identified = True  # type: ignore[attr-defined]
    local_environment._wrap_command = wrapped
    return True


def install_hermes() -> bool:
    try:
        from gateway import session_context
        from tools.environments import local
    except ImportError:
        return False
    inject = getattr(local, "_inject_session_context_env", None)
    names = getattr(session_context, "_VAR_MAP", None)
    if not callable(inject) or not isinstance(names, dict):
        return False
    return install(local.LocalEnvironment, inject, names)
