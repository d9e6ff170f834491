"""A command the host runs itself (``shell/exec``), outside any turn: a user's
``!git status`` in a chat box, or a host's own check in the profile's
environment. Names follow ``types``: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from typing import Annotated, Literal

from ..wire import ErrorType, RpcError
from .model import Name
from .names import SessionId, WorkerKey
from .record import Record, doc_field

DEFAULT_SHELL_TIMEOUT_MS = 60_000
MAX_SHELL_TIMEOUT_MS = 600_000
MAX_COMMAND_ARGS = 1024
MAX_COMMAND_CHARS = 131_072  # all arguments together; far below the kernel's ARG_MAX
MAX_SHELL_OUTPUT = 1_048_576  # bytes of each stream a result keeps (the end of it)
MAX_SHELL_STDIN = 1_048_576  # characters a command may be given on its stdin
MAX_STREAM_ID = 128
MAX_TERMINAL_SIDE = 10_000  # rows or columns of a terminal

OutputStream = Literal["stdout", "stderr"]


class TerminalSize(Record):
    rows: int = doc_field(f"Its height in lines: 1 to {MAX_TERMINAL_SIDE}.")
    cols: int = doc_field(f"Its width in characters: 1 to {MAX_TERMINAL_SIDE}.")


class ShellExecParams(Record):
    command: list[str] = doc_field(
        "The program and its arguments, run as given (no shell): for a line the user"
        ' typed, ["bash", "-c", line].'
    )
    workspace: str | None = doc_field(
        "Run in this directory (absolute, existing); wins over the session's.", None
    )
    session_id: SessionId | None = doc_field(
        "Run in this session's workspace (the one its next turn uses), in its worker.", None
    )
    timeout_ms: int = doc_field(
        f"Ended (SIGTERM to its process group, SIGKILL 2 s later) after this long:"
        f" 1 to {MAX_SHELL_TIMEOUT_MS}.",
        DEFAULT_SHELL_TIMEOUT_MS,
    )
    disable_timeout: bool = doc_field(
        "Run it with no time limit (timeoutMs is then ignored): until it exits, the"
        " request is cancelled, or its worker stops. For a host's terminal panel or a"
        " dev server it watches.",
        False,
    )
    stdin: str | None = doc_field(
        f"Text for its stdin (UTF-8, at most {MAX_SHELL_STDIN} characters), closed after;"
        " null: /dev/null.",
        None,
    )
    approved: bool = doc_field(
        "The user confirmed a command hermes rates dangerous (see command_dangerous).", False
    )
    stream_id: Annotated[str, Name(MAX_STREAM_ID)] | None = doc_field(
        "Push the output as it comes, as shell/output notifications carrying this id;"
        " the result's stdout and stderr are then empty.",
        None,
    )
    interactive: bool = doc_field(
        "Keep its stdin open after stdin's text, for shell/write (needs streamId).", False
    )
    terminal: TerminalSize | None = doc_field(
        "Run it in a pseudo-terminal of this size, its controlling terminal and its"
        " stdin, stdout and stderr (output all as stdout; input by shell/write; size by"
        " shell/resize). Needs streamId; null: pipes.",
        None,
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class ShellExecResult(Record):
    exit_code: int | None = doc_field("How it exited; null when a signal ended it.")
    signal: str | None = doc_field("The signal that ended it (e.g. SIGTERM), else null.")
    timed_out: bool = doc_field("It ran past timeoutMs and was ended.")
    stdout: str = doc_field(
        f"Its standard output (UTF-8, invalid bytes replaced): the last {MAX_SHELL_OUTPUT}"
        " bytes; empty when streamed."
    )
    stderr: str = doc_field("Its standard error, the same way.")
    truncated: bool = doc_field("stdout or stderr lost its beginning to the limit.")
    duration_ms: int = doc_field("From its start to its end.")
    workspace: str = doc_field("The directory it ran in.")


class ShellOutputNotification(Record):
    stream_id: str = doc_field("The streamId of the shell/exec request.")
    stream: OutputStream = doc_field("Which of its outputs this came from.")
    text: str = doc_field("The next piece of that output, as it came (UTF-8, in order).")


class ShellWriteParams(Record):
    stream_id: Annotated[str, Name(MAX_STREAM_ID)] = doc_field(
        "The streamId of the running shell/exec (interactive, or in a terminal)."
    )
    text: str | None = doc_field(
        f"Text for its input (UTF-8, at most {MAX_SHELL_STDIN} characters); in a terminal,"
        ' what the user typed: "\\r" for Enter, "\\u0003" for ^C.',
        None,
    )
    close_input: bool = doc_field(
        "Then close its input once what is queued is written (in a terminal: ^D).", False
    )
    session_id: SessionId | None = doc_field(
        "The sessionId its shell/exec named, if any: the worker it runs in.", None
    )
    profile: str | None = doc_field("The profile its shell/exec named; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("The workerKey its shell/exec named.", None)


class ShellWriteResult(Record):
    """No fields: the text was queued for the command, and its input closed if asked."""


class ShellResizeParams(Record):
    stream_id: Annotated[str, Name(MAX_STREAM_ID)] = doc_field(
        "The streamId of the running shell/exec (interactive, or in a terminal)."
    )
    size: TerminalSize = doc_field("The terminal's new size; the program gets SIGWINCH.")
    session_id: SessionId | None = doc_field(
        "The sessionId its shell/exec named, if any: the worker it runs in.", None
    )
    profile: str | None = doc_field("The profile its shell/exec named; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("The workerKey its shell/exec named.", None)


class ShellResizeResult(Record):
    """No fields: the terminal has its new size."""


def command_not_running(stream_id: str) -> RpcError:
    """What shell/write and shell/resize answer for a stream that takes no input:
    the supervisor's answer (no worker runs) and the worker's (no such command) alike."""
    return RpcError(
        ErrorType.COMMAND_NOT_RUNNING,
        f"no running command of streamId {stream_id!r} takes input here",
        streamId=stream_id,
    )
