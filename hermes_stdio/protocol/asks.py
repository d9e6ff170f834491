"""What a run asks the host and waits for: approvals, clarifying questions, compression,
sudo passwords, the secrets a skill needs.

Each kind is a ``.../requested`` notification naming the request by an id, a
``.../respond`` request that answers it, and one ``.../resolved`` notification
that closes it (answered, timed out, cancelled), all scoped to the run; approvals
can also be answered ahead for a whole session (``session/autoApprove``), and a
session's file edits held for review (``session/reviewEdits``). Names
follow ``types``: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from typing import Literal

from .events import FileEdit
from .names import SessionId, WorkerKey
from .record import Record, doc_field
from .types import JsonObject

ApprovalDecision = Literal["once", "session", "always", "deny"]
ApprovalOutcome = Literal["approved", "denied", "timed_out", "cancelled"]
ClarifyOutcome = Literal["answered", "timed_out", "cancelled"]
CompressionOutcome = Literal["compressed", "failed", "timed_out", "cancelled"]
SudoOutcome = Literal["answered", "declined", "timed_out", "cancelled"]
SecretOutcome = Literal["stored", "skipped", "failed", "timed_out", "cancelled"]


# --- approvals -------------------------------------------------------------


class ApprovalToolCall(Record):
    """The tool call a plugin sent for approval, as its tool.started will name it."""

    tool_call_id: str = doc_field("The model's id of the call.")
    name: str = doc_field("The tool.")
    args: JsonObject = doc_field("Its arguments, as hermes shows them (secrets redacted).")


class ApprovalRequestedNotification(Record):
    run_id: str = doc_field("The run whose tool call waits.")
    session_id: str = doc_field("Its session.")
    seq: int = doc_field("Per-run sequence number.")
    approval_id: str = doc_field("Names this request in approval/respond.")
    command: str = doc_field("The command or code to run, with secrets redacted.")
    description: str = doc_field("Why it needs approval (what the guard matched).")
    pattern_keys: list[str] = doc_field("The dangerous patterns it matched.")
    allow_permanent: bool = doc_field("Whether the decision always may be offered.")
    edits: list[FileEdit] = doc_field(
        "For a file edit held for review (run/start's reviewEdits): the files it would"
        " change, each with the change as a diff; empty for a command."
    )
    tool_call: ApprovalToolCall | None = doc_field(
        "For a tool call a hermes plugin's pre_tool_call hook sent for approval: that"
        " call; null otherwise.",
        None,
    )


class ApprovalRespondParams(Record):
    run_id: str = doc_field("The run of the approval request.")
    approval_id: str = doc_field("The request being answered.")
    decision: ApprovalDecision = doc_field(
        "once, session (this pattern, rest of the session), always (also saved to the"
        " profile's allowlist) or deny."
    )
    reason: str | None = doc_field("With deny: told to the agent so it can adapt.", None)


class ApprovalRespondResult(Record):
    outcome: Literal["approved", "denied"] = doc_field("What the answer did.")


class ApprovalResolvedNotification(Record):
    run_id: str = doc_field("The run.")
    session_id: str = doc_field("Its session.")
    seq: int = doc_field("Per-run sequence number.")
    approval_id: str = doc_field("The request that is no longer pending.")
    outcome: ApprovalOutcome = doc_field(
        "approved or denied by the host, timed_out, or cancelled (the run was interrupted"
        " or ended)."
    )
    decision: ApprovalDecision | None = doc_field("The host's answer; null if it gave none.")


# Answered ahead, for a whole session.
class SessionAutoApproveParams(Record):
    session_id: SessionId = doc_field("The session; created (or resumed) when no worker holds it.")
    enabled: bool = doc_field(
        "Whether what would ask the host for approval runs unasked, from now on (the run in"
        " progress included), as run/start's autoApprove."
    )
    profile: str | None = doc_field("Profile to ask when the session is not routed yet.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class SessionAutoApproveResult(Record):
    session_id: str = doc_field("The session.")
    auto_approve: bool = doc_field("The session's autoApprove now.")


# Edits held for review, switched for a whole session.
class SessionReviewEditsParams(Record):
    session_id: SessionId = doc_field("The session; created (or resumed) when no worker holds it.")
    enabled: bool = doc_field(
        "Whether its file edits wait for the host's approval, from now on (the run in progress"
        " included), as run/start's reviewEdits."
    )
    profile: str | None = doc_field("Profile to ask when the session is not routed yet.", None)
    worker_key: WorkerKey | None = doc_field("Worker isolation key.", None)


class SessionReviewEditsResult(Record):
    session_id: str = doc_field("The session.")
    review_edits: bool = doc_field("The session's reviewEdits now.")


# --- clarifying questions ---------------------------------------------------


class ClarifyRequestedNotification(Record):
    run_id: str = doc_field("The run whose agent asks.")
    session_id: str = doc_field("Its session.")
    seq: int = doc_field("Per-run sequence number.")
    clarify_id: str = doc_field("Names this question in clarify/respond.")
    question: str = doc_field("The question.")
    choices: list[str] | None = doc_field(
        "Up to 4 suggested answers; any other text is accepted too. Null: open-ended."
    )
    timeout_ms: int = doc_field("How long the agent waits for the answer.")


class ClarifyRespondParams(Record):
    run_id: str = doc_field("The run of the question.")
    clarify_id: str = doc_field("The question being answered.")
    answer: str = doc_field("The user's answer: one of the choices, or free text.")


class ClarifyRespondResult(Record):
    outcome: Literal["answered"] = doc_field("The agent has the answer.")


class ClarifyResolvedNotification(Record):
    run_id: str = doc_field("The run.")
    session_id: str = doc_field("Its session.")
    seq: int = doc_field("Per-run sequence number.")
    clarify_id: str = doc_field("The question that is no longer pending.")
    outcome: ClarifyOutcome = doc_field(
        "answered by the host, timed_out, or cancelled (the run was interrupted or ended)."
    )
    answer: str | None = doc_field("The answer the agent got; null when none came.")


# --- compression -------------------------------------------------------------


class CompressionRequestedNotification(Record):
    run_id: str = doc_field("The run whose context is to be compressed.")
    session_id: str = doc_field("Its session (its compression is host).")
    seq: int = doc_field("Per-run sequence number.")
    compression_id: str = doc_field("Names this request in compression/respond.")
    messages: list[JsonObject] = doc_field(
        "The conversation to compress, OpenAI-style; during a turn the current user"
        " message is the last user message."
    )
    message_count: int = doc_field("len(messages).")
    tokens: int = doc_field("Rough tokens of a request with these messages.")
    context_length: int | None = doc_field("The model's context window in tokens, if known.")
    focus_topic: str | None = doc_field("What the summary should keep above all, if anything.")
    timeout_ms: int = doc_field("How long the run waits for the answer.")


class CompressionRespondParams(Record):
    run_id: str = doc_field("The run of the compression request.")
    compression_id: str = doc_field("The request being answered.")
    messages: list[JsonObject] | None = doc_field(
        "The compressed conversation, which replaces it: OpenAI-style messages, each"
        " with a role (system, user, assistant or tool); keep the current user message"
        " as it is. Send this or error.",
        None,
    )
    error: str | None = doc_field(
        "Instead of messages: why the host could not compress; the conversation stays as it was.",
        None,
    )


class CompressionRespondResult(Record):
    outcome: Literal["compressed", "failed"] = doc_field("What the answer did.")


class CompressionResolvedNotification(Record):
    run_id: str = doc_field("The run.")
    session_id: str = doc_field("Its session.")
    seq: int = doc_field("Per-run sequence number.")
    compression_id: str = doc_field("The request that is no longer pending.")
    outcome: CompressionOutcome = doc_field(
        "compressed (the host's messages replaced the conversation), failed (the host"
        " sent an error), timed_out, or cancelled (the run was interrupted or ended)."
    )
    message_count: int | None = doc_field("Messages after compression; null unless compressed.")
    tokens: int | None = doc_field(
        "Rough tokens after compression; null unless compressed (or not estimable)."
    )
    error: str | None = doc_field("The host's error when failed; null otherwise.")


# --- sudo passwords ------------------------------------------------------------


class SudoRequestedNotification(Record):
    run_id: str = doc_field("The run whose terminal command runs sudo.")
    session_id: str = doc_field("Its session.")
    seq: int = doc_field("Per-run sequence number.")
    sudo_id: str = doc_field("Names this request in sudo/respond.")
    timeout_ms: int = doc_field("How long the command waits for the password.")


class SudoRespondParams(Record):
    run_id: str = doc_field("The run of the request.")
    sudo_id: str = doc_field("The request being answered.")
    password: str | None = doc_field(
        "The user's sudo password; null declines (the command runs without one)."
    )


class SudoRespondResult(Record):
    outcome: Literal["answered", "declined"] = doc_field("What the answer did.")


class SudoResolvedNotification(Record):
    run_id: str = doc_field("The run.")
    session_id: str = doc_field("Its session.")
    seq: int = doc_field("Per-run sequence number.")
    sudo_id: str = doc_field("The request that is no longer pending.")
    outcome: SudoOutcome = doc_field(
        "answered (a password was given; never sent back), declined, timed_out, or"
        " cancelled (the run was interrupted or ended)."
    )


# --- secrets a skill needs -------------------------------------------------------


class SecretRequestedNotification(Record):
    run_id: str = doc_field("The run whose agent loads the skill.")
    session_id: str = doc_field("Its session.")
    seq: int = doc_field("Per-run sequence number.")
    secret_id: str = doc_field("Names this request in secret/respond.")
    env_var: str = doc_field("The environment variable the skill needs, e.g. GITHUB_TOKEN.")
    prompt: str = doc_field("What to ask the user, from the skill.")
    skill_name: str = doc_field("The skill that needs it.")
    help: str | None = doc_field("Where to get the value (often a URL), from the skill.")
    required_for: str | None = doc_field("What the skill needs it for, from the skill.")
    timeout_ms: int = doc_field("How long the skill waits for the value.")


class SecretRespondParams(Record):
    run_id: str = doc_field("The run of the request.")
    secret_id: str = doc_field("The request being answered.")
    value: str | None = doc_field(
        "The secret, saved to the profile's .env; null or empty skips (the skill stays"
        " unconfigured and the agent is told so)."
    )


class SecretRespondResult(Record):
    outcome: Literal["answered", "skipped"] = doc_field("What the answer did.")


class SecretResolvedNotification(Record):
    run_id: str = doc_field("The run.")
    session_id: str = doc_field("Its session.")
    seq: int = doc_field("Per-run sequence number.")
    secret_id: str = doc_field("The request that is no longer pending.")
    outcome: SecretOutcome = doc_field(
        "stored (saved to the profile's .env; never sent back), skipped, failed (hermes"
        " refused to save it), timed_out, or cancelled (the run was interrupted or ended)."
    )
