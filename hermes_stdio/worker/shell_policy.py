"""hermes' rules for a command the host runs itself (``shell/exec``).

Contract:
- ``line_of(argv)`` is the command line to rate: for a shell given a script
  (``[bash|sh|zsh|dash|ksh, -c, script, args...]``, any option cluster with
  ``c``) the script, followed by its arguments (which it may run, through
  ``$1``); else the argv joined as a shell would read it. hermes rates its
  agent's commands the same way: as the script its terminal's shell runs (it
  flags any ``bash -c`` it sees, since that hides what runs).
``ShellPolicy(approval, local)``, given hermes' ``tools.approval`` and
``tools.environments.local`` modules:
- ``refusal(command)`` rates a command line as hermes rates an agent's
  terminal command, before its approval mode is consulted:
  ``("blocked", why)`` for what hermes never runs (its hardline list, the
  profile's ``approvals.deny``), ``("dangerous", why)`` for what it asks
  about (its dangerous patterns), unless the profile's permanent allowlist
  (an approval answered ``always``) takes it; else None. Neither YOLO nor
  ``approvals.mode: off`` waives a rating here: the host confirms a
  dangerous command itself.
- ``env()`` is the environment hermes gives a program it spawns outside the
  terminal tool (``hermes_subprocess_env``): the worker's environment (the
  profile's ``.env`` included, kept current) without provider keys, gateway
  tokens or hermes' internal secrets.
The rules hermes keeps in private functions (deny rules, allowlist) are used
when its module has them, and skipped when it does not: the public hardline
and dangerous-pattern checks always apply.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any, Literal

Refusal = tuple[Literal["blocked", "dangerous"], str]
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_SCRIPT_OPTION = re.compile(r"-[a-z]*c[a-z]*")


def line_of(argv: list[str]) -> str:
    if (
        len(argv) >= 3
        and os.path.basename(argv[0]) in _SHELLS
        and _SCRIPT_OPTION.fullmatch(argv[1])
    ):
        return " ".join([argv[2], *map(shlex.quote, argv[3:])])
    return shlex.join(argv)


class ShellPolicy:
    def __init__(self, approval: Any, local: Any) -> None:
        self._approval, self._local = approval, local

    def refusal(self, command: str) -> Refusal | None:
        hardline, why = self._approval.detect_hardline_command(command)
        if hardline:
            return ("blocked", str(why))
        denied = getattr(self._approval, "_match_user_deny_rule", None)
        pattern = denied(command) if callable(denied) else None
        if pattern is not None:
            return ("blocked", f"the profile's approvals.deny rule {pattern!r}")
        dangerous, _key, description = self._approval.detect_dangerous_command(command)
        if not dangerous:
            return None
        allowed = getattr(self._approval, "_command_matches_permanent_allowlist", None)
        if callable(allowed) and allowed(command):
            return None
        return ("dangerous", str(description))

    def env(self) -> dict[str, str]:
        return dict(self._local.hermes_subprocess_env())
