"""What a profile gives its agents besides sessions: slash commands (its skills
and skill bundles), its skills and toolsets (enabled or not), its hermes
plugins, MCP servers, and the tools the model is offered. Names follow
``types``: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from typing import Annotated, Literal

from .model import Name
from .names import SessionId, WorkerKey
from .record import Record, doc_field

MAX_TOGGLE_NAME = 64  # a skill's or toolset's name: hermes cuts a skill's to this
MAX_PLUGIN_NAME = 256  # a plugin's key is <category>/<name>, each a directory's name

McpServerState = Literal["connected", "connecting", "failed", "disabled", "configured"]


class CommandInfo(Record):
    name: str = doc_field("The command as typed, e.g. /code-review.")
    description: str = doc_field("What it does, from the skill or bundle.")
    kind: Literal["skill", "bundle"] = doc_field("A skill, or a bundle of skills.")


class CommandListResult(Record):
    commands: list[CommandInfo] = doc_field("The profile's slash commands, sorted by name.")


class CommandListChangedNotification(Record):
    profile: str = doc_field("The profile whose slash commands may have changed.")


class McpServerInfo(Record):
    name: str = doc_field("The server's name under mcp_servers in the profile's config.yaml.")
    transport: str = doc_field("How hermes reaches it: stdio, or http / sse for a url.")
    status: McpServerState = doc_field(
        "connected; connecting (still starting, or reconnecting after it was lost); failed"
        " (see error); disabled (enabled: false); configured (not started by this worker,"
        " e.g. added to config.yaml since)."
    )
    tools: int = doc_field("How many tools it gives the profile's agents; 0 unless connected.")
    error: str | None = doc_field(
        "Why it failed to connect; while connecting again after a loss, why it was lost or"
        " why the last attempt failed; null otherwise.",
        None,
    )
    auth: Literal["oauth"] | None = doc_field(
        "oauth: it signs in with OAuth (auth: oauth in config.yaml; mcp/login); null: it"
        " does not (keys in its env or headers, or none).",
        None,
    )
    signed_in: bool | None = doc_field(
        "For an oauth server: whether the profile holds its tokens (hermes renews them;"
        " one it could not renew leaves the server failed: sign in again). Null otherwise.",
        None,
    )


class McpStatusResult(Record):
    servers: list[McpServerInfo] = doc_field(
        "Each MCP server the profile's config.yaml lists, in its order; empty when none."
    )


class McpStatusChangedNotification(Record):
    profile: str = doc_field("The profile whose worker's MCP servers these are.")
    worker_key: str | None = doc_field("That worker's workerKey; null for the profile's own.")
    servers: list[McpServerInfo] = doc_field(
        "Each MCP server the profile's config.yaml lists, as mcp/status gives them now."
    )


class ToolListParams(Record):
    session_id: SessionId | None = doc_field(
        "The tools this session's agent offers; a new agent's when absent or not built yet.",
        default=None,
    )
    profile: str | None = doc_field("Hermes profile; default when absent.", default=None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", default=None)


class ToolInfo(Record):
    name: str = doc_field("The tool, as tool.started events name it.")
    toolset: str | None = doc_field("The toolset it belongs to (an MCP server's for its tools).")
    description: str = doc_field("What the model is told it does.")


class ToolListResult(Record):
    tools: list[ToolInfo] = doc_field("The tools the model is offered, by name.")
    enabled_toolsets: list[str] | None = doc_field(
        "The toolsets the agent is built with (hermes tools for the CLI platform); null: all."
    )
    disabled_toolsets: list[str] = doc_field("agent.disabled_toolsets: left out even so.")


class SkillInfo(Record):
    name: str = doc_field("The skill's name, as hermes and skills.disabled name it.")
    description: str = doc_field("What it does, from its SKILL.md.")
    category: str | None = doc_field("The directory hermes files it under; null for none.")
    enabled: bool = doc_field(
        "Whether the profile's agents may use it (hermes' skills.disabled and"
        " skills.platform_disabled.cli name it not)."
    )


class SkillListResult(Record):
    skills: list[SkillInfo] = doc_field(
        "Each skill hermes finds for the profile, enabled or not, by category then name."
    )


class SkillSetEnabledParams(Record):
    name: Annotated[str, Name(MAX_TOGGLE_NAME)] = doc_field("The skill's name.")
    enabled: bool = doc_field("Whether the profile's agents may use it.")
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class SkillResult(Record):
    skill: SkillInfo = doc_field("The skill as it is now.")


class ToolsetInfo(Record):
    name: str = doc_field("The toolset, as platform_toolsets and tool/list name it.")
    label: str = doc_field("hermes' title for it, e.g. Web Search & Scraping.")
    description: str = doc_field("hermes' summary of what it gives, e.g. web_search, web_extract.")
    enabled: bool = doc_field("Whether the profile's agents get it (hermes' cli platform).")
    tools: list[str] = doc_field(
        "The tools hermes' definition of it names, by name (tool/list: those offered)."
    )


class ToolsetListResult(Record):
    toolsets: list[ToolsetInfo] = doc_field(
        "Each toolset hermes lets the profile configure, in hermes' order."
    )


class ToolsetSetEnabledParams(Record):
    name: Annotated[str, Name(MAX_TOGGLE_NAME)] = doc_field("The toolset's name.")
    enabled: bool = doc_field("Whether the profile's agents get it.")
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class ToolsetResult(Record):
    toolset: ToolsetInfo = doc_field("The toolset as it is now.")


class PluginInfo(Record):
    key: str = doc_field(
        "Its id, as plugins.enabled and plugins.disabled name it: its directory's name,"
        " or <category>/<name> (e.g. observability/langfuse)."
    )
    name: str = doc_field("The name its manifest (plugin.yaml) gives.")
    version: str | None = doc_field("Its manifest's version; null for none.")
    description: str | None = doc_field("What it does, from its manifest; null for nothing.")
    source: str = doc_field(
        "Where hermes found it: bundled (ships with hermes), user (the profile's plugins/"
        " folder), entrypoint (an installed Python package), project."
    )
    kind: str | None = doc_field(
        "hermes' kind of plugin (standalone, backend, exclusive, platform...), as the"
        " worker answering loaded it; null when that worker has not seen it."
    )
    enabled: bool = doc_field(
        "Whether the profile's config.yaml lets it load: named by plugins.enabled (a bundled"
        " backend need not be) and not by plugins.disabled. The profile's next worker"
        " loads it so."
    )
    active: bool = doc_field("Whether it is loaded, and on, in the worker answering now.")
    reason: str | None = doc_field(
        "hermes' reason it is not loaded in that worker (not enabled, disabled, its load"
        " error...); null when it is."
    )
    tools: int = doc_field("The tools it registered in that worker.")
    hooks: int = doc_field("The hooks it registered in that worker.")
    commands: int = doc_field("The slash commands it registered in that worker.")


class PluginListResult(Record):
    plugins: list[PluginInfo] = doc_field("Each plugin hermes finds for the profile, by key.")


class PluginSetEnabledParams(Record):
    name: Annotated[str, Name(MAX_PLUGIN_NAME)] = doc_field(
        "The plugin's key, or the name its manifest gives."
    )
    enabled: bool = doc_field("Whether the profile's config lets it load.")
    profile: str | None = doc_field("Hermes profile; default when absent.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class PluginResult(Record):
    plugin: PluginInfo = doc_field("The plugin as it is now.")
