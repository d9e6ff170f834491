"""``shell/exec``: a command the host runs itself, outside any turn, through
``shell_exec`` under hermes' rules (``shell_policy``).

Contract (a mixin of ``WorkerService``, which provides ``adapter``, ``peer``
and ``_session_workspace``):
- Checked on the reader: ``command`` (1 to ``MAX_COMMAND_ARGS`` arguments,
  ``MAX_COMMAND_CHARS`` in all, a non-empty program, no NUL), ``stdin`` (at
  most ``MAX_SHELL_STDIN`` characters), ``timeoutMs`` (unless
  ``disableTimeout``: no limit) and ``workspace``
  (``invalid_params`` naming the field); a worker that is
  stopping is ``shutting_down``; with ``MAX_COMMANDS`` already running,
  ``too_many_commands``.
- Each command then has a thread of its own (never a ``JobQueue`` one: it may
  run for minutes), where hermes' rules are fetched (``adapter.shell_policy``,
  which may import hermes-agent; none, as for the synthetic agent, or hermes
  missing: ``agent_unavailable``). It runs in ``workspace``, else the
  session's workspace (``_session_workspace``), else the worker's directory,
  with the worker's tag in its environment (so it dies with the worker:
  ``kill_tagged``). Its line is rated first: ``command_blocked`` or, unless
  ``approved``, ``command_dangerous``, each with ``data.description``;
  nothing runs then. A program that cannot be started is ``invalid_params``
  naming ``params.command``.
- ``cancel_command(id)`` (the supervisor's ``$/cancelRequest``) ends that
  request's command; it is answered ``request_cancelled``. ``stop_commands()``
  (the worker stopping) ends them all and refuses new ones (``shutting_down``);
  ``join_commands()`` then waits for them, bounded.
- With ``streamId`` each piece of output is a ``shell/output`` notification,
  written before the answer.
- ``interactive`` (its stdin stays open) and ``terminal`` (a pseudo-terminal
  of that size, ``MAX_TERMINAL_SIDE`` at most each way) need ``streamId``,
  which no other running command of this worker may have (``invalid_params``
  naming ``params.streamId``). While it runs, ``shell/write`` queues text for
  its input (``command_busy`` past ``shell_exec.MAX_BACKLOG`` bytes it has
  not read) and may close it, and ``shell/resize`` sets its terminal's size
  (``invalid_params`` for one without a terminal); either is
  ``command_not_running`` (``data.streamId``) for a stream no running
  command of this worker has, or one whose input is closed.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any

from ..protocol import encode
from ..protocol import shell as sh
from ..protocol.opt_out import OptOut
from ..transport import Peer
from ..transport.process import WORKER_TAG, exit_status
from ..wire import ErrorType, Request, RequestId, RpcError
from . import terminal_dir
from .checks import check_workspace
from .contract import AgentAdapter, AgentUnavailable
from .parts import request_error
from .queries import DEFERRED
from .shell_exec import DRAIN_S, KILL_GRACE_S, Command, Outcome, Stream
from .shell_policy import line_of

MAX_COMMANDS = 8  # each is a thread and a process tree of this worker's


def _checked(argv: list[str]) -> list[str]:
    if not argv or not argv[0]:
        raise RpcError(ErrorType.INVALID_PARAMS, "command names no program", field="params.command")
    if len(argv) > sh.MAX_COMMAND_ARGS or sum(map(len, argv)) > sh.MAX_COMMAND_CHARS:
        raise RpcError(
            ErrorType.INVALID_PARAMS,
            f"command is longer than {sh.MAX_COMMAND_ARGS} arguments"
            f" or {sh.MAX_COMMAND_CHARS} characters",
            field="params.command",
        )
    for n, arg in enumerate(argv):
        if "\0" in arg:
            raise RpcError(
                ErrorType.INVALID_PARAMS, "an argument holds NUL", field=f"params.command[{n}]"
            )
    return argv


class ShellMethods:
    adapter: AgentAdapter
    peer: Peer | None
    _session_workspace: Callable[[str | None], str | None]
    opt_out: OptOut  # shell/output opted out of is not written

    commands: dict[RequestId, tuple[Command, threading.Thread]]  # running ones, by request
    streams: dict[str, Command]  # running interactive or terminal ones, by streamId
    commands_lock: threading.Lock
    commands_stopped: bool

    def _h_shell_exec(self, req: Request, p: sh.ShellExecParams) -> object:
        argv = _checked(p.command)
        if not p.disable_timeout and not 1 <= p.timeout_ms <= sh.MAX_SHELL_TIMEOUT_MS:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                f"timeoutMs must be 1 to {sh.MAX_SHELL_TIMEOUT_MS}",
                field="params.timeoutMs",
            )
        if p.stdin is not None and len(p.stdin) > sh.MAX_SHELL_STDIN:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                f"stdin is longer than {sh.MAX_SHELL_STDIN} characters",
                field="params.stdin",
            )
        check_workspace(p.workspace)
        stream_id, peer = p.stream_id, self.peer
        assert peer is not None
        live = p.interactive or p.terminal is not None
        if live and stream_id is None:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                "an interactive or terminal command needs a streamId",
                field="params.streamId",
            )
        size = None if p.terminal is None else _size(p.terminal, "params.terminal")

        def output(stream: Stream, text: str) -> None:
            if not self.opt_out.mutes("shell/output"):
                note = sh.ShellOutputNotification(stream_id or "", stream, text)
                peer.notify("shell/output", encode(note))

        stdin = None if p.stdin is None else p.stdin.encode()
        command = Command(
            argv,
            output if stream_id is not None else None,
            sh.MAX_SHELL_OUTPUT,
            stdin,
            live=p.interactive,
            terminal=size,
        )

        def run() -> None:
            error: RpcError | dict[str, Any] | None = None
            try:
                result = self._exec(command, argv, p)
            except Exception as exc:
                error = request_error(exc)
            finally:
                with self.commands_lock:  # its place is free before the host hears
                    self.commands.pop(req.id, None)
                    if live and stream_id is not None:
                        self.streams.pop(stream_id, None)
            if error is None and result is None:
                error = RpcError(ErrorType.REQUEST_CANCELLED)
            if error is not None:
                peer.respond_error(req.id, error)
            else:
                peer.respond(req.id, encode(result))

        thread = threading.Thread(target=run, name="shell-exec", daemon=True)
        with self.commands_lock:
            table = self.commands
            if self.commands_stopped:
                raise RpcError(ErrorType.SHUTTING_DOWN)
            if len(table) >= MAX_COMMANDS:
                raise RpcError(
                    ErrorType.TOO_MANY_COMMANDS,
                    f"{MAX_COMMANDS} commands of this worker are running",
                )
            if live and stream_id in self.streams:
                raise RpcError(
                    ErrorType.INVALID_PARAMS,
                    f"streamId {stream_id!r} is a running command's",
                    field="params.streamId",
                )
            table[req.id] = (command, thread)
            if live and stream_id is not None:
                self.streams[stream_id] = command
            try:
                thread.start()
            except BaseException:
                del table[req.id]
                if live and stream_id is not None:  # not another command's, of the same id
                    self.streams.pop(stream_id, None)
                raise
        return DEFERRED

    def _h_shell_write(self, req: Request, p: sh.ShellWriteParams) -> sh.ShellWriteResult:
        text = p.text or ""
        if len(text) > sh.MAX_SHELL_STDIN:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                f"text is longer than {sh.MAX_SHELL_STDIN} characters",
                field="params.text",
            )
        command = self._streamed(p.stream_id)
        accepted = command.write(text.encode()) if text else "ok"
        if accepted == "full":
            raise RpcError(
                ErrorType.COMMAND_BUSY,
                f"{p.stream_id!r} has not read what it was sent yet",
                streamId=p.stream_id,
            )
        if accepted == "closed" or (p.close_input and not command.close_input()):
            raise sh.command_not_running(p.stream_id)
        return sh.ShellWriteResult()

    def _h_shell_resize(self, req: Request, p: sh.ShellResizeParams) -> sh.ShellResizeResult:
        rows, cols = _size(p.size, "params.size")
        command = self._streamed(p.stream_id)
        if not command.in_terminal:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                f"{p.stream_id!r} runs without a terminal",
                field="params.streamId",
            )
        if not command.resize(rows, cols):
            raise sh.command_not_running(p.stream_id)
        return sh.ShellResizeResult()

    def _streamed(self, stream_id: str) -> Command:
        with self.commands_lock:
            command = self.streams.get(stream_id)
        if command is None:
            raise sh.command_not_running(stream_id)
        return command

    def _exec(
        self, command: Command, argv: list[str], p: sh.ShellExecParams
    ) -> sh.ShellExecResult | None:
        policy = self.adapter.shell_policy()  # may import hermes-agent: never on the reader
        if policy is None:
            raise AgentUnavailable("this agent runs no commands")
        root = p.workspace or self._session_workspace(p.session_id) or terminal_dir.current()
        refused = policy.refusal(line_of(argv))
        if refused is not None:
            kind, why = refused
            if kind == "blocked":
                raise RpcError(
                    ErrorType.COMMAND_BLOCKED, f"hermes never runs this: {why}", description=why
                )
            if not p.approved:
                raise RpcError(
                    ErrorType.COMMAND_DANGEROUS,
                    f"hermes rates this dangerous ({why}): send it with approved once the"
                    " user confirms it",
                    description=why,
                )
        try:
            limit = None if p.disable_timeout else p.timeout_ms / 1000
            done = command.run(root, _tagged(policy.env()), limit)
        except OSError as exc:
            raise RpcError(
                ErrorType.INVALID_PARAMS, f"cannot run {argv[0]!r}: {exc}", field="params.command"
            ) from exc
        return None if done.cancelled else _result(done, root)

    def cancel_command(self, request_id: RequestId) -> None:
        with self.commands_lock:
            running = self.commands.get(request_id)
        if running is not None:
            running[0].cancel()

    def stop_commands(self) -> None:
        """End every command (and refuse new ones); ``join_commands`` waits for them."""
        with self.commands_lock:
            self.commands_stopped = True
            running = list(self.commands.values())
        for command, _ in running:
            command.cancel()

    def join_commands(self) -> None:
        with self.commands_lock:
            running = list(self.commands.values())
        deadline = time.monotonic() + KILL_GRACE_S + DRAIN_S + 1.0
        for _, thread in running:
            thread.join(max(0.0, deadline - time.monotonic()))


def _size(size: sh.TerminalSize, field: str) -> tuple[int, int]:
    for side, value in (("rows", size.rows), ("cols", size.cols)):
        if not 1 <= value <= sh.MAX_TERMINAL_SIDE:
            raise RpcError(
                ErrorType.INVALID_PARAMS,
                f"{side} must be 1 to {sh.MAX_TERMINAL_SIDE}",
                field=f"{field}.{side}",
            )
    return size.rows, size.cols


def _tagged(env: dict[str, str]) -> dict[str, str]:
    """``env`` with this worker's tag, whatever hermes' sanitizing keeps: by it the
    command is found and killed if the worker dies (``kill_tagged``)."""
    tag = os.environ.get(WORKER_TAG)
    return {**env, WORKER_TAG: tag} if tag else env


def _result(done: Outcome, root: str) -> sh.ShellExecResult:
    code, ended_by = exit_status(done.returncode)
    return sh.ShellExecResult(
        exit_code=code,
        signal=ended_by,
        timed_out=done.timed_out,
        stdout=done.stdout,
        stderr=done.stderr,
        truncated=done.truncated,
        duration_ms=round(done.duration_s * 1000),
        workspace=root,
    )
