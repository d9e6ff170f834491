"""``shell/exec``, ``shell/write`` and ``shell/resize``: the supervisor's side.

Contract (a mixin of ``Supervisor``, which provides ``pool``, ``_target`` and
``_forward``): ``shell/exec`` goes to its session's worker, else its
profile's (started if needed), and is waited for its ``timeoutMs`` plus
``SHELL_SLACK_S`` (never less than any request); with ``disableTimeout``, until
it is answered or its worker dies. ``shell/write`` and
``shell/resize`` go to the same worker only if it is ready or starting (a
starting one is about to run the ``shell/exec`` sent before them, and gets
them after it); none is started for them: ``command_not_running``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..protocol import shell as sh
from ..wire import Request
from .routes import SlotKey
from .routing import REQUEST_TIMEOUT_S
from .slot import WorkerSlot
from .workers import WorkerPool

SHELL_SLACK_S = 15.0  # ending a command past its timeout, then reading its rest


class ShellRouting:
    pool: WorkerPool
    _target: Callable[[str | None, str | None, str | None], SlotKey]
    _forward: Callable[..., None]

    def _h_shell_exec(self, req: Request, p: sh.ShellExecParams) -> None:
        # A command may run for timeoutMs, then be ended: the worker answers after that.
        # One with no limit is waited for as long as it runs (its worker's death ends it).
        wait = p.timeout_ms / 1000 + SHELL_SLACK_S
        limit = None if p.disable_timeout else max(REQUEST_TIMEOUT_S, wait)
        slot = self.pool.slot(*self._target(p.session_id, p.profile, p.worker_key))
        self._forward(req, slot, timeout=limit)

    def _h_shell_write(self, req: Request, p: sh.ShellWriteParams | sh.ShellResizeParams) -> None:
        slot: WorkerSlot | None = self.pool.existing(
            self._target(p.session_id, p.profile, p.worker_key)
        )
        if slot is None or slot.state not in ("starting", "ready"):
            raise sh.command_not_running(p.stream_id)
        self._forward(req, slot)

    _h_shell_resize = _h_shell_write
