"""Every notification a server may send: to a host, and from a worker to the supervisor.

Contract:
- ``SERVER_NOTIFICATIONS`` is every notification a host may receive;
  ``WORKER_NOTIFICATIONS`` what a worker sends its supervisor besides them.
  Nothing else is sent on either wire.
- ``RUN_NOTIFICATIONS`` are those about one run (their params start with
  ``runId``, ``sessionId`` and ``seq``); ``RELAYED_NOTIFICATIONS`` those a
  worker writes, which the supervisor relays to the host as they came.
- ``REQUIRED_NOTIFICATIONS`` are those a host cannot opt out of
  (``ClientCapabilities``).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from . import accounts as ac
from . import asks as a
from . import config as cf
from . import cron as cr
from . import env as ev
from . import mcp_login as ml
from . import memory as mm
from . import processes as pr
from . import profiles as pf
from . import shell as sh
from . import soul as so
from . import toolbox as tx
from . import types as t
from . import workers as pw


class NotificationSpec(NamedTuple):
    name: str
    params: type
    doc: str
    run_scoped: bool = False
    origin: Literal["worker", "supervisor"] = "worker"  # who writes it


SERVER_NOTIFICATIONS: dict[str, NotificationSpec] = {
    n.name: n
    for n in (
        NotificationSpec(
            "run/started",
            t.RunStartedNotification,
            "The run's agent is ready and the turn begins.",
            True,
        ),
        NotificationSpec(
            "run/delta",
            t.RunDeltaNotification,
            "Assistant text, streamed as the model produces it.",
            True,
        ),
        NotificationSpec(
            "run/event",
            t.RunEventNotification,
            "Tool, status, reasoning and other agent activity.",
            True,
        ),
        NotificationSpec(
            "approval/requested",
            a.ApprovalRequestedNotification,
            "A tool call waits for the host's approval of a dangerous command.",
            True,
        ),
        NotificationSpec(
            "approval/resolved",
            a.ApprovalResolvedNotification,
            "An approval request is no longer pending (answered, timed out, cancelled).",
            True,
        ),
        NotificationSpec(
            "clarify/requested",
            a.ClarifyRequestedNotification,
            "The agent asks the user a clarifying question and waits for the answer.",
            True,
        ),
        NotificationSpec(
            "clarify/resolved",
            a.ClarifyResolvedNotification,
            "A clarifying question is no longer pending (answered, timed out, cancelled).",
            True,
        ),
        NotificationSpec(
            "compression/requested",
            a.CompressionRequestedNotification,
            "A run waits for the host to compress its session's conversation.",
            True,
        ),
        NotificationSpec(
            "compression/resolved",
            a.CompressionResolvedNotification,
            "A compression request is no longer pending (compressed, failed, timed out,"
            " cancelled).",
            True,
        ),
        NotificationSpec(
            "sudo/requested",
            a.SudoRequestedNotification,
            "A terminal command runs sudo and waits for the user's password.",
            True,
        ),
        NotificationSpec(
            "sudo/resolved",
            a.SudoResolvedNotification,
            "A sudo password request is no longer pending (answered, declined, timed out,"
            " cancelled).",
            True,
        ),
        NotificationSpec(
            "secret/requested",
            a.SecretRequestedNotification,
            "A skill the agent loads needs a secret the profile lacks; the skill waits.",
            True,
        ),
        NotificationSpec(
            "secret/resolved",
            a.SecretResolvedNotification,
            "A secret request is no longer pending (stored, skipped, failed, timed out,"
            " cancelled).",
            True,
        ),
        NotificationSpec(
            "run/completed",
            t.RunCompletedNotification,
            "The run ended; exactly one per started run, always its last.",
            True,
        ),
        NotificationSpec(
            "session/titled",
            t.SessionTitledNotification,
            "hermes titled a session after one of its first exchanges.",
        ),
        NotificationSpec(
            "process/started",
            pr.ProcessStartedNotification,
            "A session's agent started a background process.",
        ),
        NotificationSpec(
            "process/exited",
            pr.ProcessExitedNotification,
            "A background process a session's agent started has ended (exited or killed).",
        ),
        NotificationSpec(
            "shell/output",
            sh.ShellOutputNotification,
            "The next output of a shell/exec request that asked for it to be streamed.",
        ),
        NotificationSpec(
            "subagent/started",
            pr.SubagentStartedNotification,
            "A session's agent started a subagent in the background (an async delegate_task).",
        ),
        NotificationSpec(
            "subagent/progress",
            pr.SubagentProgressNotification,
            "A subagent a session's agent started in the background did something (its"
            " tools, text, thinking), during its parent's run or after it.",
        ),
        NotificationSpec(
            "subagent/ended",
            pr.SubagentEndedNotification,
            "A subagent a session's agent started in the background has ended.",
        ),
        NotificationSpec(
            "command/listChanged",
            tx.CommandListChangedNotification,
            "The files behind the profile's slash commands changed (a skill, a bundle,"
            " config.yaml), whoever changed them: command/list gives the commands.",
            origin="supervisor",
        ),
        NotificationSpec(
            "profile/listChanged",
            pf.ProfileListChangedNotification,
            "The profiles changed: one was made, removed or renamed, or the model, provider"
            " or description profile/list shows for one (profile/list gives them).",
            origin="supervisor",
        ),
        NotificationSpec(
            "cron/listChanged",
            cr.CronListChangedNotification,
            "A profile's cron jobs changed on disk, whoever changed them (an agent's cronjob"
            " tool, a cron/* request, hermes' gateway running one): cron/list gives them.",
            origin="supervisor",
        ),
        NotificationSpec(
            "config/changed",
            cf.ConfigChangedNotification,
            "A profile's config.yaml changed on disk, whoever changed it (a config/write,"
            " the user's editor, hermes' CLI): config/read gives it.",
            origin="supervisor",
        ),
        NotificationSpec(
            "soul/changed",
            so.SoulChangedNotification,
            "A profile's SOUL.md changed on disk, whoever changed it (a soul/write, the"
            " user's editor): soul/read gives it.",
            origin="supervisor",
        ),
        NotificationSpec(
            "env/changed",
            ev.EnvChangedNotification,
            "A profile's .env changed on disk, whoever changed it (an env/set, a secret/respond,"
            " the user's editor): env/list gives its variables. Each worker of the profile"
            " applies the change before its next agent build.",
            origin="supervisor",
        ),
        NotificationSpec(
            "memory/changed",
            mm.MemoryChangedNotification,
            "A profile's memory store changed on disk, whoever changed it (an agent's memory"
            " tool, a memory/* request, the user's editor): memory/list gives it.",
            origin="supervisor",
        ),
        NotificationSpec(
            "mcp/statusChanged",
            tx.McpStatusChangedNotification,
            "A worker's MCP servers changed status (connecting, connected, failed), or"
            " config.yaml lists others: all of them, as mcp/status gives them.",
            origin="supervisor",
        ),
        NotificationSpec(
            "mcp/loginCompleted",
            ml.McpLoginCompletedNotification,
            "An mcp/login ended: signed in (the server connects with its new tokens), or"
            " failed, with why.",
            origin="supervisor",
        ),
        NotificationSpec(
            "account/loginCompleted",
            ac.AccountLoginCompletedNotification,
            "An account/login ended: signed in (the tokens are in the profile), or failed,"
            " with why.",
            origin="supervisor",
        ),
        NotificationSpec(
            "account/changed",
            ac.AccountChangedNotification,
            "A profile's auth.json changed on disk, whoever changed it (an account/login or"
            " account/logout, hermes auth in a terminal, hermes renewing a token).",
            origin="supervisor",
        ),
        NotificationSpec(
            "worker/started",
            pw.WorkerStartedNotification,
            "A worker process is ready: sent before anything else from it.",
            origin="supervisor",
        ),
        NotificationSpec(
            "worker/exited",
            pw.WorkerExitedNotification,
            "A worker process exited.",
            origin="supervisor",
        ),
    )
}

WORKER_NOTIFICATIONS: dict[str, NotificationSpec] = {
    "worker/ready": NotificationSpec(
        "worker/ready",
        pw.WorkerReadyNotification,
        "First message a worker sends: it is ready to serve.",
    ),
    "worker/mcpChanged": NotificationSpec(
        "worker/mcpChanged",
        pw.WorkerMcpChangedNotification,
        "The worker's MCP servers, each time their status changed (the supervisor tells"
        " the host, naming the worker's profile and workerKey).",
    ),
    "worker/mcpLoginEnded": NotificationSpec(
        "worker/mcpLoginEnded",
        ml.WorkerMcpLoginEndedNotification,
        "An mcp/login that answered its loginId ended (the supervisor tells the host, as"
        " mcp/loginCompleted naming the worker's profile and workerKey).",
    ),
    "worker/accountLoginEnded": NotificationSpec(
        "worker/accountLoginEnded",
        ac.WorkerAccountLoginEndedNotification,
        "An account/login that answered its loginId ended (the supervisor tells the host,"
        " as account/loginCompleted naming the worker's profile and workerKey).",
    ),
    "worker/commandsChanged": NotificationSpec(
        "worker/commandsChanged",
        pw.WorkerCommandsChangedNotification,
        "The state of the files behind the profile's slash commands: once hermes is"
        " imported, then after each change (the supervisor tells the host of changes).",
    ),
}

# What a host cannot opt out of: a run's bounds, and each request a run waits on
# with its end (a host that never heard of one could leave the run waiting).
REQUIRED_NOTIFICATIONS = frozenset(
    n
    for n, spec in SERVER_NOTIFICATIONS.items()
    if n in ("run/started", "run/completed")
    or (spec.run_scoped and n.endswith(("/requested", "/resolved")))
)
RUN_NOTIFICATIONS = frozenset(n for n, spec in SERVER_NOTIFICATIONS.items() if spec.run_scoped)
# What the supervisor relays from workers to the host as it came.
RELAYED_NOTIFICATIONS = frozenset(
    n for n, spec in SERVER_NOTIFICATIONS.items() if spec.origin == "worker"
)
