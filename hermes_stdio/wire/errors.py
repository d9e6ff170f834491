"""Every error code on the wire, named once, and the one mapping from exceptions.

Contract:
- Standard JSON-RPC / LSP codes keep their numbers (-32700 .. -32600, -32002, -32800).
- Application errors use -32000 .. -32099 and each has a stable snake_case
  ``data.type``. Every error object this project sends carries ``data.type``.
- ``to_wire_error(exc)`` is the only function that turns an exception into an
  error object. Unexpected exceptions become ``internal_error`` with a generic
  message, never their text. It does no I/O: the I/O layers call it through
  ``transport.log.report_error``, which puts the traceback on stderr.
"""

from __future__ import annotations

from enum import Enum
from typing import Any


class ErrorType(Enum):
    """(code, data.type, summary) for every error this project can send."""

    PARSE_ERROR = (-32700, "parse_error", "The message is not valid UTF-8 JSON.")
    INVALID_REQUEST = (
        -32600,
        "invalid_request",
        "The message is not a valid JSON-RPC 2.0 envelope.",
    )
    METHOD_NOT_FOUND = (-32601, "method_not_found", "No such method.")
    INVALID_PARAMS = (
        -32602,
        "invalid_params",
        "The params do not match the method's declared type.",
    )
    INTERNAL_ERROR = (-32603, "internal_error", "An unexpected error; details are on stderr.")
    SERVER_NOT_INITIALIZED = (-32002, "server_not_initialized", "Request sent before initialize.")
    REQUEST_CANCELLED = (
        -32800,
        "request_cancelled",
        "The request was cancelled by $/cancelRequest.",
    )
    SHUTTING_DOWN = (-32000, "shutting_down", "The server is shutting down and takes no new work.")
    MESSAGE_TOO_LARGE = (-32003, "message_too_large", "A frame body exceeded the size limit.")
    UNSUPPORTED_PROTOCOL = (-32004, "unsupported_protocol", "No common protocol version.")
    INVALID_PROFILE = (-32010, "invalid_profile", "The profile name is not allowed.")
    UNKNOWN_PROFILE = (-32011, "unknown_profile", "No such profile under the Hermes home.")
    UNKNOWN_SESSION = (
        -32012,
        "unknown_session",
        "No worker holds the session and the profile's session database does not know it.",
    )
    UNKNOWN_RUN = (-32013, "unknown_run", "No such run, or its result has expired.")
    SESSION_BUSY = (-32014, "session_busy", "The session already has a run in progress.")
    UNKNOWN_APPROVAL = (
        -32015,
        "unknown_approval",
        "No such approval is pending: answered, timed out, or its run ended.",
    )
    UNKNOWN_CLARIFY = (
        -32016,
        "unknown_clarify",
        "No such question is pending: answered, timed out, or its run ended.",
    )
    UNKNOWN_COMPRESSION = (
        -32017,
        "unknown_compression",
        "No such compression request is pending: answered, timed out, or its run ended.",
    )
    UNKNOWN_SUDO = (
        -32018,
        "unknown_sudo",
        "No such password request is pending: answered, timed out, or its run ended.",
    )
    UNKNOWN_SECRET = (
        -32019,
        "unknown_secret",
        "No such secret request is pending: answered, timed out, or its run ended.",
    )
    WORKER_CRASHED = (-32020, "worker_crashed", "The worker process died while handling this.")
    WORKER_UNAVAILABLE = (-32021, "worker_unavailable", "The worker cannot be started right now.")
    WORKER_TIMEOUT = (-32022, "worker_timeout", "The worker did not answer in time.")
    AGENT_UNAVAILABLE = (
        -32023,
        "agent_unavailable",
        "hermes-agent cannot be imported by the worker's Python.",
    )
    AGENT_ERROR = (-32024, "agent_error", "The session's agent could not be built.")
    AGENT_RUNTIME_STALE = (
        -32025,
        "agent_runtime_stale",
        "hermes-agent changed on disk since the worker loaded it; restart the worker.",
    )
    WORKER_LIMIT = (
        -32026,
        "worker_limit",
        "As many workers as allowed are running and none is free to stop; try again later.",
    )
    WORKER_OVERLOADED = (
        -32027,
        "worker_overloaded",
        "The worker has not read the requests already sent to it; try again later.",
    )
    PROFILE_UNREADABLE = (
        -32028,
        "profile_unreadable",
        "The profile's config.yaml, .env or SOUL.md would hang or crash its worker's read,"
        " or hermes could not use its config.yaml (it would run on its defaults).",
    )
    UNKNOWN_CRON_JOB = (-32029, "unknown_cron_job", "No cron job of the profile has that id.")
    CONFIG_CONFLICT = (
        -32030,
        "config_conflict",
        "The profile's config.yaml changed since the version the edits were made against.",
    )
    CONFIG_READ_ONLY = (
        -32031,
        "config_read_only",
        "The setting is pinned by the administrator's managed scope, or hermes' install"
        " is managed by a package manager.",
    )
    UNKNOWN_MEMORY_ENTRY = (
        -32032,
        "unknown_memory_entry",
        "No entry of the profile's memory store is that text (removed or changed meanwhile).",
    )
    UNKNOWN_SKILL = (
        -32033,
        "unknown_skill",
        "No skill of the profile has that name (removed meanwhile, or never installed).",
    )
    UNKNOWN_TOOLSET = (
        -32034,
        "unknown_toolset",
        "No toolset hermes lets the profile configure has that name.",
    )
    COMMAND_DANGEROUS = (
        -32035,
        "command_dangerous",
        "hermes rates the command dangerous: send it again with approved once the user"
        " confirms it.",
    )
    COMMAND_BLOCKED = (
        -32036,
        "command_blocked",
        "hermes never runs the command (its hardline list, or the profile's approvals.deny).",
    )
    TOO_MANY_COMMANDS = (
        -32037,
        "too_many_commands",
        "As many shell/exec commands as a worker runs at once are running; try again later.",
    )
    PROFILE_EXISTS = (
        -32038,
        "profile_exists",
        "A profile of that name exists already (or something else has its directory's name).",
    )
    COMMAND_NOT_RUNNING = (
        -32039,
        "command_not_running",
        "No command of that streamId takes input in that worker now: it ended, or was"
        " started neither interactive nor in a terminal.",
    )
    COMMAND_BUSY = (
        -32040,
        "command_busy",
        "The command has not read what it was sent yet (1 MiB waits): send more once it has.",
    )
    SKILL_EXISTS = (
        -32041,
        "skill_exists",
        "A skill of the profile already has that name (in its skills or an external directory).",
    )
    UNKNOWN_MCP_SERVER = (
        -32042,
        "unknown_mcp_server",
        "The profile's config.yaml lists no MCP server of that name.",
    )
    UNKNOWN_MCP_LOGIN = (
        -32043,
        "unknown_mcp_login",
        "No MCP sign-in of that id waits for its callback in that worker.",
    )
    MCP_LOGIN_FAILED = (
        -32044,
        "mcp_login_failed",
        "The MCP server's sign-in ended before the user could be sent to it.",
    )
    UNKNOWN_ACCOUNT_LOGIN = (
        -32045,
        "unknown_account_login",
        "No account sign-in of that id is under way in that worker.",
    )
    ACCOUNT_LOGIN_FAILED = (
        -32046,
        "account_login_failed",
        "The provider gave no sign-in code (unreachable, or it refused).",
    )
    UNKNOWN_PLUGIN = (
        -32047,
        "unknown_plugin",
        "No plugin hermes finds for the profile has that key or name.",
    )
    MODEL_CALL_FAILED = (
        -32048,
        "model_call_failed",
        "The model gave no answer: no provider is set up, or it failed or timed out.",
    )

    def __init__(self, code: int, type_: str, summary: str) -> None:
        self.code = code
        self.type = type_
        self.summary = summary


BY_TYPE: dict[str, ErrorType] = {e.type: e for e in ErrorType}
BY_CODE: dict[int, ErrorType] = {e.code: e for e in ErrorType}


class RpcError(Exception):
    """An error meant for the wire: a named type, a human message, optional extra data."""

    def __init__(self, kind: ErrorType, message: str | None = None, **data: Any) -> None:
        super().__init__(message or kind.summary)
        self.kind = kind
        self.message = message or kind.summary
        self.data = data

    def to_wire(self) -> dict[str, Any]:
        return {
            "code": self.kind.code,
            "message": self.message,
            "data": {"type": self.kind.type, **self.data},
        }

    @classmethod
    def from_wire(cls, error: dict[str, Any]) -> RpcError:
        """Rebuild an error received from a peer, keeping its type and data."""
        data = dict(error.get("data") or {})
        kind = BY_TYPE.get(str(data.pop("type", ""))) or BY_CODE.get(
            int(error.get("code", 0)), ErrorType.INTERNAL_ERROR
        )
        return cls(kind, str(error.get("message") or kind.summary), **data)


def to_wire_error(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, RpcError):
        return exc.to_wire()
    return RpcError(ErrorType.INTERNAL_ERROR).to_wire()
