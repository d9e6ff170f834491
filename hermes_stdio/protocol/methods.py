"""The method table: every method a host or the supervisor may call, with its types
and route (the notifications a server sends are ``notifications``').

Contract:
- ``HOST_METHODS`` is what a host may send (requests and notifications);
  ``WORKER_METHODS`` is the supervisor's extra for its workers. Nothing else
  is called on either wire.
- ``route`` says who answers a host request: ``supervisor`` (never touches a
  worker), ``profile`` (the worker of params.profile/workerKey), ``session``
  (the worker that holds params.sessionId) or ``run`` (the worker running
  params.runId).
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from . import accounts as ac
from . import asks as a
from . import checkpoints as ck
from . import config as cf
from . import cron as cr
from . import env as en
from . import inputs as i
from . import insights as ins
from . import mcp_login as ml
from . import memory as mm
from . import processes as pr
from . import profiles as pf
from . import projects as pj
from . import providers as pv
from . import shell as sh
from . import skill_docs as sd
from . import soul as so
from . import stored as st
from . import toolbox as x
from . import types as t
from . import usage as u
from . import workers as pw

Route = Literal["supervisor", "profile", "session", "run"]


class Method(NamedTuple):
    name: str
    params: type
    result: Any  # a record type, or None for a notification
    route: Route
    doc: str
    notification: bool = False


def _methods(*items: Method) -> dict[str, Method]:
    return {m.name: m for m in items}


HOST_METHODS: dict[str, Method] = _methods(
    Method(
        "initialize",
        t.InitializeParams,
        t.InitializeResult,
        "supervisor",
        "Opens the session; must be the first request.",
    ),
    Method(
        "initialized",
        t.EmptyParams,
        None,
        "supervisor",
        "The host got the initialize result.",
        notification=True,
    ),
    Method(
        "shutdown",
        t.EmptyParams,
        type(None),
        "supervisor",
        "Stops every worker; then only exit is accepted.",
    ),
    Method(
        "exit",
        t.EmptyParams,
        None,
        "supervisor",
        "Exit now: code 0 after shutdown, 1 otherwise.",
        notification=True,
    ),
    Method(
        "$/cancelRequest",
        t.CancelParams,
        None,
        "supervisor",
        "Cancel a pending request; it is answered with request_cancelled.",
        notification=True,
    ),
    Method(
        "supervisor/status",
        t.EmptyParams,
        pw.SupervisorStatusResult,
        "supervisor",
        "Supervisor and worker health, without touching any worker.",
    ),
    Method(
        "profile/list",
        t.EmptyParams,
        pf.ProfileListResult,
        "supervisor",
        "The profiles in the Hermes home, read from disk; never starts a worker.",
    ),
    Method(
        "profile/create",
        pf.ProfileCreateParams,
        pf.ProfileCreateResult,
        "supervisor",
        "Make a new profile as hermes profile create does (fresh, or cloned from another).",
    ),
    Method(
        "profile/delete",
        pf.ProfileDeleteParams,
        pf.ProfileDeleteResult,
        "supervisor",
        "Delete a profile as hermes profile delete does, once its workers have stopped.",
    ),
    Method(
        "profile/rename",
        pf.ProfileRenameParams,
        pf.ProfileRenameResult,
        "supervisor",
        "Rename a profile as hermes profile rename does, once its workers have stopped.",
    ),
    Method(
        "profile/setDescription",
        pf.ProfileSetDescriptionParams,
        pf.ProfileSetDescriptionResult,
        "supervisor",
        "Set or clear a profile's description, as hermes' dashboard does; no worker needed.",
    ),
    Method(
        "profile/setActive",
        pf.ProfileSetActiveParams,
        pf.ProfileSetActiveResult,
        "supervisor",
        "Make a profile the one hermes' CLI runs without -p, as hermes profile use does.",
    ),
    Method(
        "profile/export",
        pf.ProfileExportParams,
        pf.ProfileExportResult,
        "supervisor",
        "Pack a profile into a .tar.gz as hermes profile export does, its secrets left out.",
    ),
    Method(
        "profile/import",
        pf.ProfileImportParams,
        pf.ProfileImportResult,
        "supervisor",
        "Make a profile from an archive as hermes profile import does.",
    ),
    Method(
        "worker/restart",
        t.WorkerTarget,
        pw.WorkerRestartResult,
        "supervisor",
        "Stop a profile's worker (gracefully), clear its crash back-off and start it again.",
    ),
    Method(
        "session/status",
        t.SessionStatusParams,
        t.SessionInfo,
        "session",
        "Describe a session; with ifLoaded it never starts a worker.",
    ),
    Method(
        "session/list",
        t.SessionListParams,
        t.SessionListResult,
        "profile",
        "Sessions loaded in a profile's worker; never starts a worker.",
    ),
    Method(
        "session/destroy",
        t.SessionTarget,
        t.SessionDestroyResult,
        "session",
        "Interrupt any run and forget a loaded session (its history stays in the DB).",
    ),
    Method(
        "session/switchModel",
        t.SessionSwitchModelParams,
        t.SessionSwitchModelResult,
        "session",
        "Switch a session's model (and provider) from its next run on.",
    ),
    Method(
        "session/autoApprove",
        a.SessionAutoApproveParams,
        a.SessionAutoApproveResult,
        "session",
        "Approve, or stop approving, a session's flagged commands without asking, from now on.",
    ),
    Method(
        "session/reviewEdits",
        a.SessionReviewEditsParams,
        a.SessionReviewEditsResult,
        "session",
        "Hold, or stop holding, a session's file edits for the host's review, from now on.",
    ),
    Method(
        "session/history",
        t.SessionHistoryParams,
        t.SessionHistoryResult,
        "session",
        "A session's messages, from its worker or the profile's session database.",
    ),
    Method(
        "session/listStored",
        st.SessionListStoredParams,
        st.SessionListStoredResult,
        "profile",
        "The profile's stored sessions, most recently active first, to browse and resume.",
    ),
    Method(
        "usage/summary",
        ins.UsageSummaryParams,
        ins.UsageSummaryResult,
        "profile",
        "What the profile's sessions used over a period, per model, source, tool and day.",
    ),
    Method(
        "session/search",
        st.SessionSearchParams,
        st.SessionSearchResult,
        "profile",
        "Find messages in the profile's stored sessions, with hermes' full-text search.",
    ),
    Method(
        "session/rename",
        st.SessionRenameParams,
        st.SessionRenameResult,
        "session",
        "Set or clear a stored session's title.",
    ),
    Method(
        "session/archive",
        st.SessionArchiveParams,
        st.SessionArchiveResult,
        "session",
        "Hide a stored session from session/listStored, or show it again.",
    ),
    Method(
        "session/export",
        st.SessionExportParams,
        st.SessionExportResult,
        "session",
        "A stored session as Markdown, HTML or JSON, as hermes sessions export renders it.",
    ),
    Method(
        "session/undo",
        st.SessionUndoParams,
        st.SessionUndoResult,
        "session",
        "Take back a session's last exchanges, as hermes' /undo (kept on disk for audit).",
    ),
    Method(
        "session/fork",
        st.SessionForkParams,
        st.SessionForkResult,
        "session",
        "Branch a session: a new stored session with a copy of its messages, as hermes' /branch.",
    ),
    Method(
        "session/delete",
        st.SessionDeleteParams,
        st.SessionDeleteResult,
        "session",
        "Delete a stored session for good: its messages, and the rows compression continued it in.",
    ),
    Method(
        "checkpoint/list",
        ck.CheckpointListParams,
        ck.CheckpointListResult,
        "profile",
        "A project directory's file checkpoints, taken before the profile's agents changed it.",
    ),
    Method(
        "checkpoint/diff",
        ck.CheckpointDiffParams,
        ck.CheckpointDiffResult,
        "profile",
        "A file checkpoint against the directory's files now.",
    ),
    Method(
        "checkpoint/restore",
        ck.CheckpointRestoreParams,
        ck.CheckpointRestoreResult,
        "profile",
        "Put a checkpoint's files back (the directory, or one file); hermes snapshots first.",
    ),
    Method(
        "process/list",
        t.SessionTarget,
        pr.ProcessListResult,
        "session",
        "The background processes a session's agent started, running or recently finished.",
    ),
    Method(
        "process/kill",
        pr.ProcessKillParams,
        pr.ProcessKillResult,
        "session",
        "Kill a background process a session's agent started.",
    ),
    Method(
        "subagent/list",
        t.SessionTarget,
        pr.SubagentListResult,
        "session",
        "The subagents a session's agent started in the background, running or recently finished.",
    ),
    Method(
        "subagent/interrupt",
        t.SessionTarget,
        pr.SubagentInterruptResult,
        "session",
        "Tell every subagent a session's agent started in the background, still at work, to stop.",
    ),
    Method(
        "session/goal",
        t.SessionGoalParams,
        t.GoalInfo,
        "session",
        "Set, inspect, pause, resume or clear a session's standing goal and its subgoals.",
    ),
    Method(
        "model/list",
        pv.ModelListParams,
        pv.ModelListResult,
        "profile",
        "The models the profile can use, by provider, for a model picker.",
    ),
    Method(
        "model/oneShot",
        pv.ModelOneShotParams,
        pv.ModelOneShotResult,
        "profile",
        "One request to a model outside any conversation, e.g. a commit message for a diff.",
    ),
    Method(
        "account/login",
        ac.AccountLoginParams,
        ac.AccountLoginResult,
        "profile",
        "Start signing the profile in to a provider's account: the code and page for the user.",
    ),
    Method(
        "account/loginCancel",
        ac.AccountLoginCancelParams,
        ac.AccountLoginCancelResult,
        "profile",
        "Stop a sign-in that is still waiting for the user; it stores nothing.",
    ),
    Method(
        "account/logout",
        ac.AccountLogoutParams,
        ac.AccountLogoutResult,
        "profile",
        "Remove the profile's sign-in to a provider's account.",
    ),
    Method(
        "session/estimateContext",
        u.SessionContextParams,
        u.SessionContextResult,
        "session",
        "Rough token count of a session's next request against its model's context window.",
    ),
    Method(
        "command/list",
        t.WorkerTarget,
        x.CommandListResult,
        "profile",
        "The profile's slash commands (skills and skill bundles), scanned afresh.",
    ),
    Method(
        "skill/list",
        t.WorkerTarget,
        x.SkillListResult,
        "profile",
        "The profile's skills, each enabled for its agents or not.",
    ),
    Method(
        "skill/setEnabled",
        x.SkillSetEnabledParams,
        x.SkillResult,
        "profile",
        "Enable or disable a skill for the profile's agents (hermes' skills.disabled).",
    ),
    Method(
        "skill/read",
        sd.SkillReadParams,
        sd.SkillReadResult,
        "profile",
        "A skill's SKILL.md, with its version, for a skill editor.",
    ),
    Method(
        "skill/write",
        sd.SkillWriteParams,
        sd.SkillWriteResult,
        "profile",
        "Replace a skill's SKILL.md through hermes' own checks (skill_manage's edit).",
    ),
    Method(
        "skill/create",
        sd.SkillCreateParams,
        sd.SkillWriteResult,
        "profile",
        "Make a new skill from its SKILL.md through hermes' own checks (skill_manage's create).",
    ),
    Method(
        "skill/delete",
        sd.SkillDeleteParams,
        sd.SkillDeleteResult,
        "profile",
        "Delete a skill's directory as skill_manage's delete does (a pinned one is refused).",
    ),
    Method(
        "toolset/list",
        t.WorkerTarget,
        x.ToolsetListResult,
        "profile",
        "The profile's toolsets, each enabled for its agents or not.",
    ),
    Method(
        "toolset/setEnabled",
        x.ToolsetSetEnabledParams,
        x.ToolsetResult,
        "profile",
        "Enable or disable a toolset for the profile's agents (hermes' platform_toolsets.cli).",
    ),
    Method(
        "plugin/list",
        t.WorkerTarget,
        x.PluginListResult,
        "profile",
        "The profile's hermes plugins, each loaded or not, and whether its config enables it.",
    ),
    Method(
        "plugin/setEnabled",
        x.PluginSetEnabledParams,
        x.PluginResult,
        "profile",
        "Enable or disable a plugin for the profile (hermes' plugins.enabled and .disabled).",
    ),
    Method(
        "project/facts",
        pj.ProjectFactsParams,
        pj.ProjectFactsResult,
        "profile",
        "A directory's project as hermes' agents see it: root, project files, verify commands.",
    ),
    Method(
        "reference/complete",
        i.ReferenceCompleteParams,
        i.ReferenceCompleteResult,
        "profile",
        "The @ references (keywords, files, folders) that complete the one being typed.",
    ),
    Method(
        "shell/exec",
        sh.ShellExecParams,
        sh.ShellExecResult,
        "profile",
        "Run a command in the profile's environment, outside any turn (a user's !command).",
    ),
    Method(
        "shell/write",
        sh.ShellWriteParams,
        sh.ShellWriteResult,
        "profile",
        "Send input to a running interactive or terminal shell/exec, or close it.",
    ),
    Method(
        "shell/resize",
        sh.ShellResizeParams,
        sh.ShellResizeResult,
        "profile",
        "Change the size of a running shell/exec's terminal.",
    ),
    Method(
        "tool/list",
        x.ToolListParams,
        x.ToolListResult,
        "profile",
        "The tools the model is offered: a session's agent's, or a new agent's of the profile.",
    ),
    Method(
        "mcp/status",
        t.WorkerTarget,
        x.McpStatusResult,
        "profile",
        "The profile's MCP servers as its worker sees them: connected, failed, and so on.",
    ),
    Method(
        "mcp/connect",
        t.WorkerTarget,
        x.McpStatusResult,
        "profile",
        "Connect the profile's MCP servers that are not connected (failed, or listed since).",
    ),
    Method(
        "mcp/login",
        ml.McpLoginParams,
        ml.McpLoginResult,
        "profile",
        "Start signing the profile in to an OAuth MCP server: the URL to send the user to.",
    ),
    Method(
        "mcp/loginCallback",
        ml.McpLoginCallbackParams,
        ml.McpLoginCallbackResult,
        "profile",
        "Hand a sign-in the URL the browser was sent back to; mcp/loginCompleted follows.",
    ),
    Method(
        "mcp/logout",
        ml.McpLogoutParams,
        ml.McpLogoutResult,
        "profile",
        "Sign the profile out of an OAuth MCP server: its tokens removed, its connection dropped.",
    ),
    Method(
        "cron/list",
        t.WorkerTarget,
        cr.CronListResult,
        "profile",
        "The profile's cron jobs, paused ones included.",
    ),
    Method(
        "cron/create",
        cr.CronCreateParams,
        cr.CronJobResult,
        "profile",
        "Schedule a prompt, as an agent's cronjob tool does.",
    ),
    Method(
        "cron/update",
        cr.CronUpdateParams,
        cr.CronJobResult,
        "profile",
        "Change a cron job's schedule, prompt, name, repeat, skills or delivery.",
    ),
    Method(
        "cron/pause",
        cr.CronPauseParams,
        cr.CronJobResult,
        "profile",
        "Pause a cron job: it does not run until resumed.",
    ),
    Method(
        "cron/resume",
        cr.CronJobParams,
        cr.CronJobResult,
        "profile",
        "Resume a paused cron job.",
    ),
    Method(
        "cron/remove",
        cr.CronJobParams,
        cr.CronJobResult,
        "profile",
        "Remove a cron job.",
    ),
    Method(
        "cron/run",
        cr.CronRunParams,
        t.RunStartResult,
        "profile",
        "Run a cron job now, as a run of its own: its agent's approvals are asked in it.",
    ),
    Method(
        "cron/tick",
        t.WorkerTarget,
        cr.CronTickResult,
        "profile",
        "Fire the profile's due cron jobs now, as hermes' scheduler tick does: a run each.",
    ),
    Method(
        "cron/output",
        cr.CronOutputParams,
        cr.CronOutputResult,
        "profile",
        "What a cron job's last runs gave, as hermes saved it, newest first.",
    ),
    Method(
        "config/read",
        t.WorkerTarget,
        cf.ConfigReadResult,
        "profile",
        "The profile's settings (its config.yaml), hermes' defaults and the managed ones.",
    ),
    Method(
        "config/write",
        cf.ConfigWriteParams,
        cf.ConfigWriteResult,
        "profile",
        "Change the profile's settings, keeping the file's comments and layout.",
    ),
    Method(
        "soul/read",
        so.SoulReadParams,
        so.SoulReadResult,
        "supervisor",
        "The profile's SOUL.md, the agent's identity in its system prompt; never starts a worker.",
    ),
    Method(
        "soul/write",
        so.SoulWriteParams,
        so.SoulWriteResult,
        "supervisor",
        "Replace the profile's SOUL.md, for the sessions it starts from then on.",
    ),
    Method(
        "env/list",
        t.WorkerTarget,
        en.EnvListResult,
        "profile",
        "The profile's environment variables (API keys, tokens...): which are set, and"
        " where from; no secret's value.",
    ),
    Method(
        "env/set",
        en.EnvSetParams,
        en.EnvVarResult,
        "profile",
        "Save a variable in the profile's .env, as hermes saves a credential.",
    ),
    Method(
        "env/remove",
        en.EnvRemoveParams,
        en.EnvRemoveResult,
        "profile",
        "Remove a variable from the profile's .env and hermes' other credential stores.",
    ),
    Method(
        "memory/list",
        t.WorkerTarget,
        mm.MemoryListResult,
        "profile",
        "What the profile's agents remember across sessions: its notes and the user's profile.",
    ),
    Method(
        "memory/add",
        mm.MemoryAddParams,
        mm.MemoryStoreResult,
        "profile",
        "Add an entry to a memory store, as the agent's memory tool does.",
    ),
    Method(
        "memory/replace",
        mm.MemoryReplaceParams,
        mm.MemoryStoreResult,
        "profile",
        "Change a memory entry, named by its whole text.",
    ),
    Method(
        "memory/remove",
        mm.MemoryRemoveParams,
        mm.MemoryStoreResult,
        "profile",
        "Remove a memory entry, named by its whole text.",
    ),
    Method(
        "run/start",
        t.RunStartParams,
        t.RunStartResult,
        "profile",
        "Start a turn; answered at once, then the run's notifications follow.",
    ),
    Method(
        "session/compress",
        t.SessionCompressParams,
        t.RunStartResult,
        "session",
        "Compress a session's history now, as a run of its own (no user message).",
    ),
    Method(
        "run/interrupt",
        t.RunTarget,
        t.RunInterruptResult,
        "run",
        "Ask a running run to stop; it ends with run/completed status interrupted.",
    ),
    Method(
        "run/steer",
        t.RunSteerParams,
        t.RunSteerResult,
        "run",
        "Add text for a running agent without interrupting it; it reads it with its next"
        " tool result.",
    ),
    Method(
        "approval/respond",
        a.ApprovalRespondParams,
        a.ApprovalRespondResult,
        "run",
        "Answer an approval/requested: the waiting tool call runs or is blocked.",
    ),
    Method(
        "clarify/respond",
        a.ClarifyRespondParams,
        a.ClarifyRespondResult,
        "run",
        "Answer a clarify/requested: the agent's waiting question gets the answer.",
    ),
    Method(
        "compression/respond",
        a.CompressionRespondParams,
        a.CompressionRespondResult,
        "run",
        "Answer a compression/requested with the compressed conversation, or an error.",
    ),
    Method(
        "sudo/respond",
        a.SudoRespondParams,
        a.SudoRespondResult,
        "run",
        "Answer a sudo/requested with the user's sudo password, or decline.",
    ),
    Method(
        "secret/respond",
        a.SecretRespondParams,
        a.SecretRespondResult,
        "run",
        "Answer a secret/requested with the secret a skill needs, or skip it.",
    ),
    Method(
        "run/result",
        t.RunTarget,
        t.RunResultResult,
        "run",
        "A run's status and result; finished runs are kept for a bounded time and count.",
    ),
)

WORKER_METHODS: dict[str, Method] = _methods(
    Method(
        "worker/shutdown",
        t.EmptyParams,
        type(None),
        "supervisor",
        "Interrupt runs, close sessions, answer, then exit.",
    ),
    Method(
        "worker/background",
        t.EmptyParams,
        pw.WorkerBackgroundResult,
        "supervisor",
        "The sessions whose background work goes on (asked before an idle or limit stop).",
    ),
    Method(
        "worker/setOptOut",
        pw.WorkerSetOptOutParams,
        None,
        "supervisor",
        "The notifications the host opted out of (a run's: for runs opened from now on);"
        " sent first to a new worker, and again when a later initialize changes them.",
        notification=True,
    ),
)
