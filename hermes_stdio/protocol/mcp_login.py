"""Signing a profile in to an MCP server that uses OAuth (``auth: oauth``), with the
host in the browser's part. Names follow ``types``: snake_case here, camelCase on
the wire.
"""

from __future__ import annotations

from typing import Annotated

from .model import Name
from .names import WorkerKey
from .record import Record, doc_field

McpLoginId = Annotated[str, Name(64)]
MAX_CALLBACK_URL = 8192  # a redirect URL: a code and a state, and the host's own address


class McpLoginParams(Record):
    name: Annotated[str, Name(128)] = doc_field(
        "The server's name under mcp_servers in the profile's config.yaml."
    )
    redirect_uri: Annotated[str, Name(2048)] | None = doc_field(
        "Where the authorization server sends the browser back, which the host catches"
        " (its own URL scheme, a loopback page it serves, a webview's navigation); null:"
        " the server's oauth.redirect_uri in config.yaml. The server's oauth.redirect_uri"
        " wins when both are set.",
        None,
    )
    profile: str | None = doc_field("Profile name; null or absent means default.", None)
    worker_key: WorkerKey | None = doc_field("Isolation key for a separate worker process.", None)


class McpLoginResult(Record):
    login_id: str = doc_field("Names this sign-in in mcp/loginCallback and mcp/loginCompleted.")
    authorization_url: str = doc_field("Open it in the user's browser.")
    redirect_uri: str = doc_field(
        "The address the browser is sent back to once the user has answered: hand that"
        " whole URL to mcp/loginCallback."
    )


class McpLoginCallbackParams(Record):
    login_id: McpLoginId = doc_field("The mcp/login's loginId.")
    url: Annotated[str, Name(MAX_CALLBACK_URL)] = doc_field(
        "The URL the browser was sent back to (its query, code=...&state=... or"
        " error=..., is what counts; the query alone does)."
    )
    profile: str | None = doc_field("The mcp/login's profile.", None)
    worker_key: WorkerKey | None = doc_field("The mcp/login's workerKey.", None)


class McpLoginCallbackResult(Record):
    login_id: str = doc_field("The sign-in now goes on: mcp/loginCompleted tells how it ended.")


class McpLogoutParams(Record):
    name: Annotated[str, Name(128)] = doc_field(
        "The server's name under mcp_servers in the profile's config.yaml."
    )
    profile: str | None = doc_field("Profile name; null or absent means default.", None)
    worker_key: WorkerKey | None = doc_field("Isolation key for a separate worker process.", None)


class McpLogoutResult(Record):
    name: str = doc_field("The MCP server.")
    signed_out: bool = doc_field(
        "True: the profile's tokens for it were removed; false: it held none."
    )


class McpLoginCompletedNotification(Record):
    profile: str = doc_field("The profile signed in.")
    worker_key: str | None = doc_field("The worker's workerKey; null for the profile's own.")
    login_id: str = doc_field("The mcp/login's loginId.")
    name: str = doc_field("The MCP server.")
    ok: bool = doc_field(
        "True: the tokens are stored in the profile and the server is being connected with"
        " them (mcp/statusChanged follows)."
    )
    error: str | None = doc_field(
        "Why it failed (the user declined, the code was refused, it timed out, a newer"
        " mcp/login replaced it); the tokens stored before are left as they were."
    )


class WorkerMcpLoginEndedNotification(Record):
    login_id: str = doc_field("The mcp/login's loginId.")
    name: str = doc_field("The MCP server.")
    error: str | None = doc_field("Why it failed; null when it succeeded.")
