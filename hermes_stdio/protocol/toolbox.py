"""What a profile gives its agents besides sessions: slash commands (its skills
and skill bundles) and MCP servers. Names follow ``types``: snake_case here,
camelCase on the wire.
"""

from __future__ import annotations

from typing import Literal

from .record import Record, doc_field

McpServerState = Literal["connected", "connecting", "failed", "disabled", "configured"]


class CommandInfo(Record):
    name: str = doc_field("The command as typed, e.g. /code-review.")
    description: str = doc_field("What it does, from the skill or bundle.")
    kind: Literal["skill", "bundle"] = doc_field("A skill, or a bundle of skills.")


class CommandListResult(Record):
    commands: list[CommandInfo] = doc_field("The profile's slash commands, sorted by name.")


class McpServerInfo(Record):
    name: str = doc_field("The server's name under mcp_servers in the profile's config.yaml.")
    transport: str = doc_field("How hermes reaches it: stdio, or http / sse for a url.")
    status: McpServerState = doc_field(
        "connected; connecting (still starting); failed (see error); disabled (enabled:"
        " false); configured (not started by this worker, e.g. added to config.yaml since)."
    )
    tools: int = doc_field("How many tools it gives the profile's agents; 0 unless connected.")
    error: str | None = doc_field("Why it failed to connect; null otherwise.", None)


class McpStatusResult(Record):
    servers: list[McpServerInfo] = doc_field(
        "Each MCP server the profile's config.yaml lists, in its order; empty when none."
    )
