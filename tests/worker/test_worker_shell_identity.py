"""worker/shell_identity.py: each command gets the session variables hermes gives its
process, even after the shared saved shell state set them to another session's."""

from __future__ import annotations

import subprocess
from typing import Any

from hermes_stdio.worker import shell_identity
from hermes_stdio.worker.shell_identity import prelude

NAMES = ("HERMES_SESSION_ID", "HERMES_SESSION_KEY", "HERMES_SESSION_CHAT_ID")


def inject_for(bound: dict[str, str], engaged: bool = True) -> Any:
    """hermes' injector: bound variables win; unbound ones are dropped once engaged."""

    def inject(env: dict[str, str]) -> None:
        for name in NAMES:
            if name in bound:
                env[name] = bound[name]
            elif engaged:
                env.pop(name, None)

    return inject


def test_bound_variables_are_exported_and_unbound_ones_unset() -> None:
    inject = inject_for({"HERMES_SESSION_ID": "s-b", "HERMES_SESSION_KEY": "k b"})
    assert prelude(inject, NAMES) == (
        "unset HERMES_SESSION_CHAT_ID\n"
        "export HERMES_SESSION_ID=s-b\n"
        "export HERMES_SESSION_KEY='k b'\n"
    )


def test_variables_the_injector_leaves_alone_are_left_alone() -> None:
    assert prelude(inject_for({}, engaged=False), NAMES) == ""


def test_after_a_stale_saved_state_is_sourced_the_command_sees_its_own_values() -> None:
    # What hermes' script does: source the saved state (another session's), then run.
    stale = "export HERMES_SESSION_ID=s-a\nexport HERMES_SESSION_CHAT_ID=chat-a\n"
    value = "it's $(not run) `nor this`"
    command = prelude(inject_for({"HERMES_SESSION_ID": value}), NAMES)
    command += 'echo "[$HERMES_SESSION_ID][${HERMES_SESSION_CHAT_ID-unset}]"'
    out = subprocess.run(
        ["bash", "-c", stale + command], capture_output=True, text=True, timeout=30, check=True
    )
    assert out.stdout == f"[{value}][unset]\n"


class FakeEnvironment:
    def _wrap_command(self, command: str, cwd: str) -> str:
        return f"source snap\ncd {cwd}\neval {command!r}"


def test_install_wraps_the_command_hermes_wraps_once() -> None:
    inject = inject_for({"HERMES_SESSION_ID": "s-b"})
    assert shell_identity.install(FakeEnvironment, inject, [*NAMES, "NOT A NAME"])
    assert shell_identity.install(FakeEnvironment, inject, NAMES)  # again: no second wrap
    script = FakeEnvironment()._wrap_command("ls", "/w")
    expected = "unset HERMES_SESSION_CHAT_ID\nexport HERMES_SESSION_ID=s-b\n"
    expected += "unset HERMES_SESSION_KEY\nls"
    assert script == f"source snap\ncd /w\neval {expected!r}"


def test_a_class_without_hermes_wrapper_is_left_alone() -> None:
    class Other:
        pass

    assert not shell_identity.install(Other, inject_for({}), NAMES)
    assert not hasattr(Other, "_wrap_command")
