/* eslint-disable */
// GENERATED FILE - DO NOT EDIT.
// Source: hermes_stdio/protocol/schema.json (via `hermes-stdio schema`).
// Regenerate with `npm run gen`; `npm run check-gen` fails when this file is stale.

/** The protocol version this client was generated for (schema x-protocolVersion). */
export const PROTOCOL_VERSION = 1 as const;
/** The schema's $id. */
export const SCHEMA_ID = 'https://hermes-stdio.invalid/protocol/v1.json' as const;

// ---- Record types ($defs) ----

export interface AccountChangedNotification {
  /**
   * The profile whose sign-ins or stored credentials changed: model/list tells which providers it is signed in to now.
   */
  profile: string;
}

export interface AccountLoginCancelParams {
  /**
   * The account/login's loginId.
   */
  loginId: string;
  /**
   * The account/login's profile.
   */
  profile?: string | null;
  /**
   * The account/login's workerKey.
   */
  workerKey?: string | null;
}

export interface AccountLoginCancelResult {
  /**
   * The sign-in is over and stores nothing (account/loginCompleted has told so).
   */
  loginId: string;
}

export interface AccountLoginCompletedNotification {
  /**
   * The profile signed in.
   */
  profile: string;
  /**
   * The worker's workerKey; null for the profile's own.
   */
  workerKey: string | null;
  /**
   * The account/login's loginId.
   */
  loginId: string;
  /**
   * The provider.
   */
  provider: string;
  /**
   * True: the profile is signed in (its auth.json holds the tokens); the next agent built for the provider uses them.
   */
  ok: boolean;
  /**
   * Why it failed (the user declined, the code expired, the provider refused, it was cancelled, a newer account/login replaced it); nothing was stored.
   */
  error: string | null;
}

export interface AccountLoginParams {
  /**
   * The provider, as model/list names it; one whose signIn is true.
   */
  provider: string;
  /**
   * Profile name; null or absent means default.
   */
  profile?: string | null;
  /**
   * Isolation key for a separate worker process.
   */
  workerKey?: string | null;
}

export interface AccountLoginResult {
  /**
   * Names this sign-in in account/loginCancel and account/loginCompleted.
   */
  loginId: string;
  /**
   * The provider.
   */
  provider: string;
  /**
   * The code the user enters at verificationUri.
   */
  userCode: string;
  /**
   * The page where the user enters userCode and approves.
   */
  verificationUri: string;
  /**
   * The same page with the code filled in, to open directly; null when the provider gives none.
   */
  verificationUriComplete: string | null;
  /**
   * Seconds the code stays valid; the sign-in fails (account/loginCompleted) if the user has not approved by then.
   */
  expiresIn: number;
}

export interface AccountLogoutParams {
  /**
   * The provider, as model/list names it.
   */
  provider: string;
  /**
   * Profile name; null or absent means default.
   */
  profile?: string | null;
  /**
   * Isolation key for a separate worker process.
   */
  workerKey?: string | null;
}

export interface AccountLogoutResult {
  /**
   * The provider.
   */
  provider: string;
  /**
   * True: the profile's sign-in to it was removed; false: it had none to remove.
   */
  signedOut: boolean;
}

export interface ApprovalRequestedNotification {
  /**
   * The run whose tool call waits.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Per-run sequence number.
   */
  seq: number;
  /**
   * Names this request in approval/respond.
   */
  approvalId: string;
  /**
   * The command or code to run, with secrets redacted.
   */
  command: string;
  /**
   * Why it needs approval (what the guard matched).
   */
  description: string;
  /**
   * The dangerous patterns it matched.
   */
  patternKeys: string[];
  /**
   * Whether the decision always may be offered.
   */
  allowPermanent: boolean;
  /**
   * For a file edit held for review (run/start's reviewEdits): the files it would change, each with the change as a diff; empty for a command.
   */
  edits: FileEdit[];
  /**
   * For a tool call a hermes plugin's pre_tool_call hook sent for approval: that call; null otherwise.
   */
  toolCall: ApprovalToolCall | null;
}

export interface ApprovalResolvedNotification {
  /**
   * The run.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Per-run sequence number.
   */
  seq: number;
  /**
   * The request that is no longer pending.
   */
  approvalId: string;
  /**
   * approved or denied by the host, timed_out, or cancelled (the run was interrupted or ended).
   */
  outcome: 'approved' | 'denied' | 'timed_out' | 'cancelled';
  /**
   * The host's answer; null if it gave none.
   */
  decision: ('once' | 'session' | 'always' | 'deny') | null;
}

export interface ApprovalRespondParams {
  /**
   * The run of the approval request.
   */
  runId: string;
  /**
   * The request being answered.
   */
  approvalId: string;
  /**
   * once, session (this pattern, rest of the session), always (also saved to the profile's allowlist) or deny.
   */
  decision: 'once' | 'session' | 'always' | 'deny';
  /**
   * With deny: told to the agent so it can adapt.
   */
  reason?: string | null;
}

export interface ApprovalRespondResult {
  /**
   * What the answer did.
   */
  outcome: 'approved' | 'denied';
}

/**
 * The tool call a plugin sent for approval, as its tool.started will name it.
 */
export interface ApprovalToolCall {
  /**
   * The model's id of the call.
   */
  toolCallId: string;
  /**
   * The tool.
   */
  name: string;
  /**
   * Its arguments, as hermes shows them (secrets redacted).
   */
  args: {
    [k: string]: unknown;
  };
}

export interface CancelParams {
  /**
   * The id of the request to cancel.
   */
  id: number | string;
}

export interface CheckpointDiffParams {
  /**
   * The project directory (absolute).
   */
  directory: string;
  /**
   * The checkpoint to compare the directory's files with.
   */
  hash: string;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface CheckpointDiffResult {
  /**
   * git diff --stat of the checkpoint against the files now.
   */
  stat: string;
  /**
   * The unified diff from the checkpoint to the files now.
   */
  diff: string;
}

export interface CheckpointInfo {
  /**
   * Names the checkpoint in checkpoint/diff and checkpoint/restore.
   */
  hash: string;
  /**
   * Its first characters, for display.
   */
  shortHash: string;
  /**
   * When it was taken (ms since the epoch).
   */
  createdAt: number | null;
  /**
   * Why, e.g. before write_file, or a pre-rollback snapshot.
   */
  reason: string;
  /**
   * Files that differ from the checkpoint before it.
   */
  filesChanged: number;
  /**
   * Lines added since the checkpoint before it.
   */
  insertions: number;
  /**
   * Lines removed since the checkpoint before it.
   */
  deletions: number;
}

export interface CheckpointListParams {
  /**
   * The project directory (absolute) whose checkpoints to list.
   */
  directory: string;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface CheckpointListResult {
  /**
   * Whether the profile's agents take checkpoints (checkpoints.enabled).
   */
  enabled: boolean;
  /**
   * The directory, normalised.
   */
  directory: string;
  /**
   * Newest first, at most checkpoints.max_snapshots.
   */
  checkpoints: CheckpointInfo[];
}

export interface CheckpointRestoreParams {
  /**
   * The project directory (absolute).
   */
  directory: string;
  /**
   * The checkpoint to restore.
   */
  hash: string;
  /**
   * Only this file (relative to directory); the whole directory when absent.
   */
  path?: string | null;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface CheckpointRestoreResult {
  /**
   * The checkpoint's short hash.
   */
  restoredTo: string;
  /**
   * The restored checkpoint's reason.
   */
  reason: string;
  /**
   * The directory, normalised.
   */
  directory: string;
  /**
   * The file restored; null for the whole directory.
   */
  path: string | null;
}

export interface ClarifyRequestedNotification {
  /**
   * The run whose agent asks.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Per-run sequence number.
   */
  seq: number;
  /**
   * Names this question in clarify/respond.
   */
  clarifyId: string;
  /**
   * The question.
   */
  question: string;
  /**
   * Up to 4 suggested answers; any other text is accepted too. Null: open-ended.
   */
  choices: string[] | null;
  /**
   * How long the agent waits for the answer.
   */
  timeoutMs: number;
}

export interface ClarifyResolvedNotification {
  /**
   * The run.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Per-run sequence number.
   */
  seq: number;
  /**
   * The question that is no longer pending.
   */
  clarifyId: string;
  /**
   * answered by the host, timed_out, or cancelled (the run was interrupted or ended).
   */
  outcome: 'answered' | 'timed_out' | 'cancelled';
  /**
   * The answer the agent got; null when none came.
   */
  answer: string | null;
}

export interface ClarifyRespondParams {
  /**
   * The run of the question.
   */
  runId: string;
  /**
   * The question being answered.
   */
  clarifyId: string;
  /**
   * The user's answer: one of the choices, or free text.
   */
  answer: string;
}

export interface ClarifyRespondResult {
  /**
   * The agent has the answer.
   */
  outcome: 'answered';
}

export interface ClientCapabilities {
  /**
   * Notifications the server must not send this host (each one of ServerCapabilities.notifications). Those a run or a waiting request needs (run/started, run/completed, and every .../requested and .../resolved) cannot be opted out of.
   */
  optOutNotificationMethods?: string[] | null;
  /**
   * run/event types the server must not send this host (each one of ServerCapabilities.runEvents).
   */
  optOutRunEvents?: string[] | null;
}

export interface ClientInfo {
  /**
   * The host's name, for logs.
   */
  name: string;
  /**
   * The host's version.
   */
  version?: string | null;
}

/**
 * The message started with a slash command, which was expanded.
 */
export interface CommandExpandedEvent {
  /**
   * The event's type.
   */
  type: 'command.expanded';
  /**
   * The command as typed, e.g. "/code-review".
   */
  command: string;
  /**
   * What it named.
   */
  kind: 'skill' | 'bundle';
  /**
   * The skills loaded.
   */
  skills: string[];
  /**
   * A bundle's skills that are not installed.
   */
  missing: string[];
}

export interface CommandInfo {
  /**
   * The command as typed, e.g. /code-review.
   */
  name: string;
  /**
   * What it does, from the skill or bundle.
   */
  description: string;
  /**
   * A skill, or a bundle of skills.
   */
  kind: 'skill' | 'bundle';
}

export interface CommandListChangedNotification {
  /**
   * The profile whose slash commands may have changed.
   */
  profile: string;
}

export interface CommandListResult {
  /**
   * The profile's slash commands, sorted by name.
   */
  commands: CommandInfo[];
}

export interface CommitMessagePrompt {
  /**
   * The changes to describe (hermes sends the first 12,000 characters).
   */
  diff: string;
  /**
   * Recent commit subjects of the repository, whose style to match.
   */
  recentCommits?: string | null;
  /**
   * A message proposed already: write a different one (for a Regenerate button).
   */
  avoid?: string | null;
}

export interface CompressionRequestedNotification {
  /**
   * The run whose context is to be compressed.
   */
  runId: string;
  /**
   * Its session (its compression is host).
   */
  sessionId: string;
  /**
   * Per-run sequence number.
   */
  seq: number;
  /**
   * Names this request in compression/respond.
   */
  compressionId: string;
  /**
   * The conversation to compress, OpenAI-style; during a turn the current user message is the last user message.
   */
  messages: {
    [k: string]: unknown;
  }[];
  /**
   * len(messages).
   */
  messageCount: number;
  /**
   * Rough tokens of a request with these messages.
   */
  tokens: number;
  /**
   * The model's context window in tokens, if known.
   */
  contextLength: number | null;
  /**
   * What the summary should keep above all, if anything.
   */
  focusTopic: string | null;
  /**
   * How long the run waits for the answer.
   */
  timeoutMs: number;
}

export interface CompressionResolvedNotification {
  /**
   * The run.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Per-run sequence number.
   */
  seq: number;
  /**
   * The request that is no longer pending.
   */
  compressionId: string;
  /**
   * compressed (the host's messages replaced the conversation), failed (the host sent an error), timed_out, or cancelled (the run was interrupted or ended).
   */
  outcome: 'compressed' | 'failed' | 'timed_out' | 'cancelled';
  /**
   * Messages after compression; null unless compressed.
   */
  messageCount: number | null;
  /**
   * Rough tokens after compression; null unless compressed (or not estimable).
   */
  tokens: number | null;
  /**
   * The host's error when failed; null otherwise.
   */
  error: string | null;
}

export interface CompressionRespondParams {
  /**
   * The run of the compression request.
   */
  runId: string;
  /**
   * The request being answered.
   */
  compressionId: string;
  /**
   * The compressed conversation, which replaces it: OpenAI-style messages, each with a role (system, user, assistant or tool); keep the current user message as it is. Send this or error.
   */
  messages?:
    | {
        [k: string]: unknown;
      }[]
    | null;
  /**
   * Instead of messages: why the host could not compress; the conversation stays as it was.
   */
  error?: string | null;
}

export interface CompressionRespondResult {
  /**
   * What the answer did.
   */
  outcome: 'compressed' | 'failed';
}

export interface ConfigChangedNotification {
  /**
   * The profile whose config.yaml changed: config/read gives it.
   */
  profile: string;
  /**
   * The file's new version (config/read's); null once the file is gone.
   */
  version: string | null;
}

export interface ConfigEdit {
  /**
   * The setting, key by key from the top: ["agent", "max_turns"]. Keys may hold dots (a model name under a per-model override).
   */
  keyPath: string[];
  /**
   * Its new value (a string, number, boolean, list or object); null removes the key, so hermes' default applies.
   */
  value: {
    [k: string]: unknown;
  };
}

export interface ConfigReadResult {
  /**
   * The profile's config.yaml (absolute).
   */
  path: string;
  /**
   * The file's content, as a SHA-256 hex digest: config/write's expectedVersion, config/changed's version. Null when there is no file.
   */
  version: string | null;
  /**
   * The file's settings as hermes parses it, ${VAR} references unexpanded; {} when there is no file. What YAML has and JSON lacks (a date, a key that is not a string) is given as a string.
   */
  config: {
    [k: string]: unknown;
  };
  /**
   * hermes' own value for each setting the file leaves out (hermes' DEFAULT_CONFIG).
   */
  defaults: {
    [k: string]: unknown;
  };
  /**
   * Settings the administrator's managed scope pins (hermes' /etc/hermes or HERMES_MANAGED_DIR): they win over the file, and config/write refuses them. {} when there are none.
   */
  managed: {
    [k: string]: unknown;
  };
  /**
   * Why config/write refuses every change (hermes' install is managed by a package manager, e.g. NixOS); null when it does not.
   */
  readOnly: string | null;
}

export interface ConfigWriteParams {
  /**
   * 1 to 64 changes, made in order and written at once, or not at all.
   */
  edits: ConfigEdit[];
  /**
   * The version the changes were made against (config/read's): when the file now holds something else, nothing is written and the request fails with config_conflict. Absent: written over whatever the file holds.
   */
  expectedVersion?: string | null;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface ConfigWriteResult {
  /**
   * The file's new version.
   */
  version: string;
  /**
   * The file's settings now, as config/read gives them.
   */
  config: {
    [k: string]: unknown;
  };
  /**
   * For each key hermes does not know (written even so, as hermes' own config set does), what it says of it, with the key it suggests instead.
   */
  warnings: string[];
}

export interface ContextPart {
  /**
   * What it is: system_prompt, tool_definitions, rules (context files), skills (their index), mcp (MCP servers' tools), subagent_definitions, memory, conversation, instructions (the session's own).
   */
  id: string;
  /**
   * hermes' title for it, e.g. Tool definitions.
   */
  label: string;
  /**
   * Its rough tokens (about 4 characters each).
   */
  tokens: number;
}

export interface CronCreateParams {
  /**
   * When to run, as hermes takes it: 30m (once, in 30 minutes), every 2h, a cron expression (0 9 * * *), or an ISO time (once).
   */
  schedule: string;
  /**
   * What the job's agent is asked; self-contained.
   */
  prompt: string;
  /**
   * A name to show; the start of the prompt when absent.
   */
  name?: string | null;
  /**
   * Run this many times in all; forever when absent.
   */
  repeat?: number | null;
  /**
   * Skills to load before the prompt.
   */
  skills?: string[] | null;
  /**
   * Where hermes' gateway delivers its output (local, telegram...); local when absent.
   */
  deliver?: string | null;
  /**
   * The model its runs use; the profile's when absent.
   */
  model?: string | null;
  /**
   * An absolute path of a directory its agent works in; none when absent.
   */
  workdir?: string | null;
  /**
   * The only toolsets its agent gets; the profile's cron toolsets when absent.
   */
  enabledToolsets?: string[] | null;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface CronJobInfo {
  /**
   * Names the job in cron/update, cron/pause, cron/resume, cron/remove.
   */
  jobId: string;
  /**
   * Its name; the start of its prompt when it was given none.
   */
  name: string;
  /**
   * When it runs, as hermes shows it, e.g. every 60m, 0 9 * * *.
   */
  schedule: string;
  /**
   * What its agent is asked (its first 100 characters, then ...).
   */
  prompt: string;
  /**
   * Skills loaded before its prompt.
   */
  skills: string[];
  /**
   * How often it runs in all, as hermes shows it: forever, once, 3 times, or 1/3 once it has run.
   */
  repeat: string;
  /**
   * Where hermes' gateway delivers its output, e.g. local, telegram.
   */
  deliver: string;
  /**
   * False once paused (or finished).
   */
  enabled: boolean;
  /**
   * hermes' state for it: scheduled, paused, completed...
   */
  state: string;
  /**
   * When it runs next (ISO 8601); null when it will not.
   */
  nextRunAt: string | null;
  /**
   * When it last ran (ISO 8601); null before its first run.
   */
  lastRunAt: string | null;
  /**
   * How its last run went: ok, or error; null before one.
   */
  lastStatus: string | null;
  /**
   * Why its last run or delivery failed; null otherwise.
   */
  lastError: string | null;
  /**
   * Why it was paused; null when it is not or none given.
   */
  pausedReason: string | null;
  /**
   * The model its runs use; null: the profile's default.
   */
  model: string | null;
  /**
   * The directory its agent works in (its terminal, files and the project's context files, as a turn started there); null: none.
   */
  workdir: string | null;
  /**
   * The only toolsets its agent gets; null: the profile's cron toolsets.
   */
  enabledToolsets: string[] | null;
}

export interface CronJobParams {
  /**
   * The job.
   */
  jobId: string;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface CronJobResult {
  /**
   * The job as it is now (as it was, for cron/remove).
   */
  job: CronJobInfo;
}

export interface CronListChangedNotification {
  /**
   * The profile whose cron jobs changed: cron/list gives them.
   */
  profile: string;
}

export interface CronListResult {
  /**
   * Every job of the profile, paused ones included.
   */
  jobs: CronJobInfo[];
}

export interface CronOutput {
  /**
   * When the run's output was saved, in hermes' time zone: YYYY-MM-DDTHH:MM:SS.
   */
  savedAt: string;
  /**
   * The output as hermes saved it (markdown: the job, its prompt, its agent's response), at most 256 KiB of it.
   */
  text: string;
  /**
   * Whether the file holds more than text.
   */
  truncated: boolean;
}

export interface CronOutputParams {
  /**
   * The job whose runs' output to read.
   */
  jobId: string;
  /**
   * At most this many, newest first (1 to 50).
   */
  limit?: number;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface CronOutputResult {
  /**
   * Newest first; hermes keeps the last runs' (its cron.output_retention).
   */
  outputs: CronOutput[];
}

export interface CronPauseParams {
  /**
   * The job.
   */
  jobId: string;
  /**
   * Why it is paused; shown in its pausedReason.
   */
  reason?: string | null;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface CronRunParams {
  /**
   * The job.
   */
  jobId: string;
  /**
   * Hold the job's agent's file edits for the host's approval, shown as diffs, as run/start's reviewEdits does for a turn.
   */
  reviewEdits?: boolean;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface CronTickResult {
  /**
   * True when another scheduler was ticking the profile (a hermes gateway, or another worker of it): nothing was fired; its jobs are its to fire.
   */
  busy: boolean;
  /**
   * A run for each job that was due and is now claimed, in hermes' order; [] when none.
   */
  runs: CronTickRun[];
}

export interface CronTickRun {
  /**
   * The job that came due.
   */
  jobId: string;
  /**
   * The run it runs in: run/started (trigger type cron) comes next.
   */
  runId: string;
  /**
   * The run's session, listed while the run lasts.
   */
  sessionId: string;
}

export interface CronUpdateParams {
  /**
   * The job to change.
   */
  jobId: string;
  /**
   * A new schedule; unchanged when absent.
   */
  schedule?: string | null;
  /**
   * A new prompt; unchanged when absent.
   */
  prompt?: string | null;
  /**
   * A new name; unchanged when absent.
   */
  name?: string | null;
  /**
   * A new total number of runs (0 or less: forever); unchanged when absent.
   */
  repeat?: number | null;
  /**
   * New skills; unchanged when absent.
   */
  skills?: string[] | null;
  /**
   * A new delivery target; unchanged when absent.
   */
  deliver?: string | null;
  /**
   * A new model; "" for the profile's; unchanged when absent.
   */
  model?: string | null;
  /**
   * A new working directory (absolute); "" for none; unchanged when absent.
   */
  workdir?: string | null;
  /**
   * New toolsets; [] for the profile's cron toolsets; unchanged when absent.
   */
  enabledToolsets?: string[] | null;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface DayUsage {
  /**
   * The day, YYYY-MM-DD, at utcOffsetMinutes.
   */
  date: string;
  /**
   * Sessions started that day.
   */
  sessions: number;
  /**
   * Model calls of those sessions' conversations.
   */
  apiCalls: number;
  /**
   * Their prompt tokens.
   */
  inputTokens: number;
  /**
   * Tokens the model wrote in them.
   */
  outputTokens: number;
  /**
   * hermes' cost estimate stored with them (0 when unpriced).
   */
  costUsd: number;
}

/**
 * No params: send {} or omit params.
 */
export type EmptyParams = Record<string, never>;

export interface EnvChangedNotification {
  /**
   * The profile whose .env changed: env/list gives its variables (never a secret's value).
   */
  profile: string;
}

export interface EnvListResult {
  /**
   * hermes' known variables, in hermes' order, then any other the profile's .env sets, by name.
   */
  variables: EnvVarInfo[];
  /**
   * Why env/set and env/remove refuse every change (hermes' install is managed by a package manager); null when they do not.
   */
  readOnly: string | null;
}

export interface EnvRemoveParams {
  /**
   * The variable.
   */
  name: string;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface EnvRemoveResult {
  /**
   * Whether the profile had it (in its .env or hermes' credential pool).
   */
  removed: boolean;
  /**
   * The variable as it is now.
   */
  variable: EnvVarInfo;
}

export interface EnvSetParams {
  /**
   * The variable: letters, digits and _, not starting with a digit.
   */
  name: string;
  /**
   * Its value: at most 65,536 characters, ASCII only; line breaks are dropped (as hermes does).
   */
  value: string;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface EnvVarInfo {
  /**
   * The variable, e.g. OPENROUTER_API_KEY.
   */
  name: string;
  /**
   * What hermes says it is for; empty for one hermes does not know.
   */
  description: string;
  /**
   * hermes' group for it: provider, tool, messaging, skill, setting; null for one hermes does not know.
   */
  category: string | null;
  /**
   * Whether its value is a secret (an API key, a token, a password): never sent back. A variable hermes does not know counts as one.
   */
  secret: boolean;
  /**
   * Where to get one, as hermes links it; null when none.
   */
  url: string | null;
  /**
   * hermes leaves it out of its basic setup.
   */
  advanced: boolean;
  /**
   * Where the worker's value comes from: the profile's .env, the administrator's managed .env (which wins), or the environment the supervisor was started with; null when it is not set.
   */
  source: ('profile' | 'managed' | 'environment') | null;
  /**
   * Its value when it is set and not a secret; null otherwise.
   */
  value: string | null;
}

export interface EnvVarResult {
  /**
   * The variable as it is now.
   */
  variable: EnvVarInfo;
}

/**
 * A file a tool call changed.
 */
export interface FileEdit {
  /**
   * The file's absolute path.
   */
  path: string;
  /**
   * Whether the call made it, changed it or removed it.
   */
  kind: 'added' | 'updated' | 'deleted';
  /**
   * The change as a unified diff (git's a/ and b/ headers, the path relative to the session's workspace); null when it cannot be shown (see protocol.md, File edits): a side that is not UTF-8 text or is larger than 1 MiB, a file hermes' agent may not read (a .env), or a diff longer than 256 KiB.
   */
  diff: string | null;
}

/**
 * The judge's verdict on a finished turn of a session with an active goal, and the goal's state after it (the fields of GoalInfo).
 */
export interface GoalEvaluatedEvent {
  /**
   * The event's type.
   */
  type: 'goal.evaluated';
  /**
   * done, continue, wait or skipped.
   */
  verdict: string;
  /**
   * Why, in the judge's words.
   */
  reason: string;
  /**
   * Whether the host should send continuationPrompt.
   */
  shouldContinue: boolean;
  /**
   * The next run/start message, when it should.
   */
  continuationPrompt: string | null;
  /**
   * A one-line summary for the user.
   */
  message: string;
  /**
   * The standing goal; null when the session has none.
   */
  goal: string | null;
  /**
   * Where it stands.
   */
  status: ('active' | 'paused' | 'done') | null;
  /**
   * Turns judged against it so far.
   */
  turnsUsed: number;
  /**
   * Its turn budget.
   */
  maxTurns: number | null;
  /**
   * Criteria added to it, in order.
   */
  subgoals: string[];
  /**
   * The judge's last verdict: done, continue, wait ...
   */
  lastVerdict: string | null;
  /**
   * Why, in the judge's words.
   */
  lastReason: string | null;
}

export interface GoalInfo {
  /**
   * The standing goal; null when the session has none.
   */
  goal: string | null;
  /**
   * Where it stands.
   */
  status: ('active' | 'paused' | 'done') | null;
  /**
   * Turns judged against it so far.
   */
  turnsUsed: number;
  /**
   * Its turn budget.
   */
  maxTurns: number | null;
  /**
   * Criteria added to it, in order.
   */
  subgoals: string[];
  /**
   * The judge's last verdict: done, continue, wait ...
   */
  lastVerdict: string | null;
  /**
   * Why, in the judge's words.
   */
  lastReason: string | null;
}

export interface ImageInput {
  /**
   * An image file the worker can read.
   */
  path?: string | null;
  /**
   * The image itself, base64-encoded; needs mimeType.
   */
  data?: string | null;
  /**
   * With data: image/png, image/jpeg, image/gif or image/webp.
   */
  mimeType?: string | null;
  /**
   * An http(s) address the model's provider fetches.
   */
  url?: string | null;
}

/**
 * The run brought images.
 */
export interface ImagesAttachedEvent {
  /**
   * The event's type.
   */
  type: 'images.attached';
  /**
   * Sent to the model, or described as text.
   */
  mode: 'native' | 'text';
  /**
   * Images attached.
   */
  attached: number;
  /**
   * Which image was skipped, e.g. images[0], and why.
   */
  skipped: string[];
}

export interface InitializeOptions {
  /**
   * Profiles whose workers start (and import hermes-agent) right after initialize, so their first run/start does not wait for a cold worker.
   */
  prewarmProfiles?: string[] | null;
  /**
   * Fire every profile's cron jobs as they come due while this server runs, as hermes' gateway does: a cron/tick of the profile's worker (started if need be) at the soonest nextRunAt; each job fired is a run of its own. Off when absent.
   */
  scheduleCron?: boolean | null;
}

export interface InitializeParams {
  /**
   * The protocol version the host speaks; this server speaks 1.
   */
  protocolVersion: number;
  /**
   * Who the host is.
   */
  clientInfo?: ClientInfo | null;
  /**
   * What the host wants sent; null or {} for everything.
   */
  capabilities?: ClientCapabilities | null;
  /**
   * Server options.
   */
  options?: InitializeOptions | null;
}

export interface InitializeResult {
  /**
   * The protocol version the server will speak.
   */
  protocolVersion: number;
  /**
   * Who the server is.
   */
  serverInfo: ServerInfo;
  /**
   * What the server offers.
   */
  capabilities: ServerCapabilities;
}

export interface McpLoginCallbackParams {
  /**
   * The mcp/login's loginId.
   */
  loginId: string;
  /**
   * The URL the browser was sent back to (its query, code=...&state=... or error=..., is what counts; the query alone does).
   */
  url: string;
  /**
   * The mcp/login's profile.
   */
  profile?: string | null;
  /**
   * The mcp/login's workerKey.
   */
  workerKey?: string | null;
}

export interface McpLoginCallbackResult {
  /**
   * The sign-in now goes on: mcp/loginCompleted tells how it ended.
   */
  loginId: string;
}

export interface McpLoginCompletedNotification {
  /**
   * The profile signed in.
   */
  profile: string;
  /**
   * The worker's workerKey; null for the profile's own.
   */
  workerKey: string | null;
  /**
   * The mcp/login's loginId.
   */
  loginId: string;
  /**
   * The MCP server.
   */
  name: string;
  /**
   * True: the tokens are stored in the profile and the server is being connected with them (mcp/statusChanged follows).
   */
  ok: boolean;
  /**
   * Why it failed (the user declined, the code was refused, it timed out, a newer mcp/login replaced it); the tokens stored before are left as they were.
   */
  error: string | null;
}

export interface McpLoginParams {
  /**
   * The server's name under mcp_servers in the profile's config.yaml.
   */
  name: string;
  /**
   * Where the authorization server sends the browser back, which the host catches (its own URL scheme, a loopback page it serves, a webview's navigation); null: the server's oauth.redirect_uri in config.yaml. The server's oauth.redirect_uri wins when both are set.
   */
  redirectUri?: string | null;
  /**
   * Profile name; null or absent means default.
   */
  profile?: string | null;
  /**
   * Isolation key for a separate worker process.
   */
  workerKey?: string | null;
}

export interface McpLoginResult {
  /**
   * Names this sign-in in mcp/loginCallback and mcp/loginCompleted.
   */
  loginId: string;
  /**
   * Open it in the user's browser.
   */
  authorizationUrl: string;
  /**
   * The address the browser is sent back to once the user has answered: hand that whole URL to mcp/loginCallback.
   */
  redirectUri: string;
}

export interface McpLogoutParams {
  /**
   * The server's name under mcp_servers in the profile's config.yaml.
   */
  name: string;
  /**
   * Profile name; null or absent means default.
   */
  profile?: string | null;
  /**
   * Isolation key for a separate worker process.
   */
  workerKey?: string | null;
}

export interface McpLogoutResult {
  /**
   * The MCP server.
   */
  name: string;
  /**
   * True: the profile's tokens for it were removed; false: it held none.
   */
  signedOut: boolean;
}

export interface McpServerInfo {
  /**
   * The server's name under mcp_servers in the profile's config.yaml.
   */
  name: string;
  /**
   * How hermes reaches it: stdio, or http / sse for a url.
   */
  transport: string;
  /**
   * connected; connecting (still starting, or reconnecting after it was lost); failed (see error); disabled (enabled: false); configured (not started by this worker, e.g. added to config.yaml since).
   */
  status: 'connected' | 'connecting' | 'failed' | 'disabled' | 'configured';
  /**
   * How many tools it gives the profile's agents; 0 unless connected.
   */
  tools: number;
  /**
   * Why it failed to connect; while connecting again after a loss, why it was lost or why the last attempt failed; null otherwise.
   */
  error: string | null;
  /**
   * oauth: it signs in with OAuth (auth: oauth in config.yaml; mcp/login); null: it does not (keys in its env or headers, or none).
   */
  auth: 'oauth' | null;
  /**
   * For an oauth server: whether the profile holds its tokens (hermes renews them; one it could not renew leaves the server failed: sign in again). Null otherwise.
   */
  signedIn: boolean | null;
}

export interface McpStatusChangedNotification {
  /**
   * The profile whose worker's MCP servers these are.
   */
  profile: string;
  /**
   * That worker's workerKey; null for the profile's own.
   */
  workerKey: string | null;
  /**
   * Each MCP server the profile's config.yaml lists, as mcp/status gives them now.
   */
  servers: McpServerInfo[];
}

export interface McpStatusResult {
  /**
   * Each MCP server the profile's config.yaml lists, in its order; empty when none.
   */
  servers: McpServerInfo[];
}

export interface MemoryAddParams {
  /**
   * Which store.
   */
  target: 'memory' | 'user';
  /**
   * The new entry.
   */
  content: string;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface MemoryChangedNotification {
  /**
   * The profile whose memory changed: memory/list gives it.
   */
  profile: string;
  /**
   * Which store changed.
   */
  target: 'memory' | 'user';
}

export interface MemoryEntry {
  /**
   * The entry, as hermes keeps it (it may span lines).
   */
  text: string;
  /**
   * Why hermes keeps it out of its agents' prompts (it looks like an injected instruction); null when it does not.
   */
  blocked: string | null;
}

export interface MemoryListResult {
  /**
   * The agent's own notes.
   */
  memory: MemoryStoreInfo;
  /**
   * What the agent knows of the user.
   */
  user: MemoryStoreInfo;
}

export interface MemoryRemoveParams {
  /**
   * Which store.
   */
  target: 'memory' | 'user';
  /**
   * The entry to remove: its whole text, as memory/list gives it.
   */
  entry: string;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface MemoryReplaceParams {
  /**
   * Which store.
   */
  target: 'memory' | 'user';
  /**
   * The entry to change: its whole text, as memory/list gives it.
   */
  entry: string;
  /**
   * What it says from now on.
   */
  content: string;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface MemoryStoreInfo {
  /**
   * memory: the agent's own notes (MEMORY.md); user: what it knows of the user (USER.md).
   */
  target: 'memory' | 'user';
  /**
   * Whether the profile's agents use it (config.yaml memory.memory_enabled or memory.user_profile_enabled).
   */
  enabled: boolean;
  /**
   * In the file's order.
   */
  entries: MemoryEntry[];
  /**
   * How many characters the entries take, as hermes counts them.
   */
  chars: number;
  /**
   * How many hermes allows (config.yaml memory.*_char_limit).
   */
  charLimit: number;
}

export interface MemoryStoreResult {
  /**
   * The store as it is now.
   */
  store: MemoryStoreInfo;
}

export interface ModelListParams {
  /**
   * Mark this session's current model and provider; the profile's when absent.
   */
  sessionId?: string | null;
  /**
   * Ask the user-defined endpoints for their models now (network) instead of asking only the current one.
   */
  refresh?: boolean;
  /**
   * Also list the providers the profile has no credentials for (authenticated false, no models), as hermes' TUI picker does: where a host offers to sign in (signIn) or to set a key.
   */
  includeUnconfigured?: boolean;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface ModelListResult {
  /**
   * The current model (the session's, else the profile's).
   */
  model: string | null;
  /**
   * The current provider.
   */
  provider: string | null;
  /**
   * The providers the profile can use (with credentials), in hermes' order.
   */
  providers: ProviderModels[];
}

export interface ModelOneShotParams {
  /**
   * The request's system instructions.
   */
  instructions?: string | null;
  /**
   * The text the model answers.
   */
  input?: string | null;
  /**
   * Ask with hermes' own prompt for a commit message (Conventional Commits) instead of instructions and input.
   */
  commitMessage?: CommitMessagePrompt | null;
  /**
   * Sampling temperature, 0 to 2; hermes' 0.3 when absent.
   */
  temperature?: number | null;
  /**
   * Use this session's model and provider (when its worker has it loaded); else hermes' model for auxiliary tasks (its title model).
   */
  sessionId?: string | null;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface ModelOneShotResult {
  /**
   * The model's answer, without a code fence around it.
   */
  text: string;
}

export interface ModelUsage {
  /**
   * The model, without its provider prefix.
   */
  model: string;
  /**
   * Sessions that called it.
   */
  sessions: number;
  /**
   * Calls made to it.
   */
  apiCalls: number;
  /**
   * Tool calls of the sessions that last ran with it.
   */
  toolCalls: number;
  /**
   * Prompt tokens sent to it.
   */
  inputTokens: number;
  /**
   * Tokens it wrote.
   */
  outputTokens: number;
  /**
   * Of the input, tokens served from cache.
   */
  cacheReadTokens: number;
  /**
   * Of the input, tokens written to cache.
   */
  cacheWriteTokens: number;
  /**
   * Of the output, reasoning tokens.
   */
  reasoningTokens: number;
  /**
   * hermes' estimate in US dollars; null when unpriced.
   */
  costUsd: number | null;
  /**
   * What its provider reported it charged, where it does.
   */
  actualCostUsd: number;
}

/**
 * The agent wrote its plan (hermes' todo tool): the whole list as it is now.
 */
export interface PlanEvent {
  /**
   * The event's type.
   */
  type: 'plan';
  /**
   * Every task, in order; empty when the plan was cleared.
   */
  items: PlanItem[];
}

/**
 * One task of the agent's plan (its todo list), in the plan's order.
 */
export interface PlanItem {
  /**
   * The agent's id for the task.
   */
  id: string;
  /**
   * What the task is.
   */
  content: string;
  /**
   * Where it stands.
   */
  status: 'pending' | 'in_progress' | 'completed' | 'cancelled';
}

export interface PluginInfo {
  /**
   * Its id, as plugins.enabled and plugins.disabled name it: its directory's name, or <category>/<name> (e.g. observability/langfuse).
   */
  key: string;
  /**
   * The name its manifest (plugin.yaml) gives.
   */
  name: string;
  /**
   * Its manifest's version; null for none.
   */
  version: string | null;
  /**
   * What it does, from its manifest; null for nothing.
   */
  description: string | null;
  /**
   * Where hermes found it: bundled (ships with hermes), user (the profile's plugins/ folder), entrypoint (an installed Python package), project.
   */
  source: string;
  /**
   * hermes' kind of plugin (standalone, backend, exclusive, platform...), as the worker answering loaded it; null when that worker has not seen it.
   */
  kind: string | null;
  /**
   * Whether the profile's config.yaml lets it load: named by plugins.enabled (a bundled backend need not be) and not by plugins.disabled. The profile's next worker loads it so.
   */
  enabled: boolean;
  /**
   * Whether it is loaded, and on, in the worker answering now.
   */
  active: boolean;
  /**
   * hermes' reason it is not loaded in that worker (not enabled, disabled, its load error...); null when it is.
   */
  reason: string | null;
  /**
   * The tools it registered in that worker.
   */
  tools: number;
  /**
   * The hooks it registered in that worker.
   */
  hooks: number;
  /**
   * The slash commands it registered in that worker.
   */
  commands: number;
}

export interface PluginListResult {
  /**
   * Each plugin hermes finds for the profile, by key.
   */
  plugins: PluginInfo[];
}

export interface PluginResult {
  /**
   * The plugin as it is now.
   */
  plugin: PluginInfo;
}

export interface PluginSetEnabledParams {
  /**
   * The plugin's key, or the name its manifest gives.
   */
  name: string;
  /**
   * Whether the profile's config lets it load.
   */
  enabled: boolean;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface ProcessExitedNotification {
  /**
   * The session whose agent started it.
   */
  sessionId: string;
  /**
   * The process as it ended (status exited).
   */
  process: ProcessInfo;
}

export interface ProcessInfo {
  /**
   * hermes' id for it, as the agent's process tool names it.
   */
  processId: string;
  /**
   * The command (its first 200 characters).
   */
  command: string;
  /**
   * Where it runs.
   */
  cwd: string | null;
  /**
   * Its OS process id.
   */
  pid: number | null;
  /**
   * Whether it still runs.
   */
  status: 'running' | 'exited';
  /**
   * How it exited; null while it runs.
   */
  exitCode: number | null;
  /**
   * Seconds since it started.
   */
  uptimeS: number;
  /**
   * The end of its output (at most 4,000 characters).
   */
  outputTail: string;
}

export interface ProcessKillParams {
  /**
   * The session whose agent started it.
   */
  sessionId: string;
  /**
   * The process, from process/list.
   */
  processId: string;
  /**
   * Profile to look in if no worker holds it.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface ProcessKillResult {
  /**
   * False when the session started no such process or it had already exited.
   */
  killed: boolean;
}

export interface ProcessListResult {
  /**
   * Running ones and recently finished ones.
   */
  processes: ProcessInfo[];
}

export interface ProcessStartedNotification {
  /**
   * The session whose agent started it.
   */
  sessionId: string;
  /**
   * The process as it started (status running, or exited if it ended at once).
   */
  process: ProcessInfo;
}

export interface ProfileCreateParams {
  /**
   * The new profile's name: 1-64 of a-z, 0-9, _ and - starting with a letter or digit (hermes' rule), not default, nor one hermes reserves (hermes, test, tmp, root, sudo).
   */
  name: string;
  /**
   * Copy this profile's config.yaml, .env, SOUL.md, skills and memory into it (hermes profile create --clone-from); null: a fresh profile on hermes' defaults.
   */
  cloneFrom?: string | null;
  /**
   * Make a fresh profile without hermes' bundled skills (--no-skills); not with cloneFrom.
   */
  noSkills?: boolean;
  /**
   * Its description (profile.yaml), as profile/list shows it.
   */
  description?: string | null;
}

export interface ProfileCreateResult {
  /**
   * The new profile, as profile/list gives it.
   */
  profile: ProfileInfo;
}

export interface ProfileDeleteParams {
  /**
   * The profile to delete; never default.
   */
  name: string;
}

export interface ProfileDeleteResult {
  /**
   * The directory that was removed.
   */
  home: string;
}

export interface ProfileExportParams {
  /**
   * The profile to pack; default is the Hermes home's.
   */
  name: string;
  /**
   * Where to write the archive: an absolute path ending in .tar.gz, in an existing directory; a file there is replaced.
   */
  path: string;
}

export interface ProfileExportResult {
  /**
   * The archive written.
   */
  path: string;
}

export interface ProfileImportParams {
  /**
   * The archive to unpack (a .tar.gz profile/export or hermes profile export wrote): an absolute path.
   */
  path: string;
  /**
   * The new profile's name, by profile/create's rules; null: the archive's own.
   */
  name?: string | null;
}

export interface ProfileImportResult {
  /**
   * The new profile, as profile/list gives it.
   */
  profile: ProfileInfo;
}

export interface ProfileInfo {
  /**
   * What requests name it by; default is the Hermes home itself.
   */
  name: string;
  /**
   * Its directory.
   */
  home: string;
  /**
   * The default model its config.yaml names; null when none.
   */
  model: string | null;
  /**
   * The provider its config.yaml names; null when none.
   */
  provider: string | null;
  /**
   * Its profile.yaml description, as hermes profile list shows it; empty when none.
   */
  description: string;
  /**
   * Its worker processes running or starting now.
   */
  workers: number;
  /**
   * Why a request that needs its worker fails with profile_unreadable now: its config.yaml is not YAML hermes could use (hermes would run on its defaults), nests too deeply, or a file hermes reads first is not a regular file. Null when none.
   */
  problem: string | null;
  /**
   * Whether it is the active profile: the one hermes' CLI runs without -p.
   */
  active: boolean;
}

/**
 * No fields: the profiles changed; profile/list gives them.
 */
export type ProfileListChangedNotification = Record<string, never>;

export interface ProfileListResult {
  /**
   * default first, then the others by name.
   */
  profiles: ProfileInfo[];
}

export interface ProfileRenameParams {
  /**
   * The profile to rename; never default.
   */
  name: string;
  /**
   * Its new name, by profile/create's rules: not default, nor one taken or reserved.
   */
  newName: string;
}

export interface ProfileRenameResult {
  /**
   * The profile under its new name, as profile/list gives it.
   */
  profile: ProfileInfo;
}

export interface ProfileSetActiveParams {
  /**
   * The profile; default clears the choice.
   */
  name: string;
}

export interface ProfileSetActiveResult {
  /**
   * The profile now, as profile/list gives it.
   */
  profile: ProfileInfo;
}

export interface ProfileSetDescriptionParams {
  /**
   * The profile; default is the Hermes home's.
   */
  name: string;
  /**
   * Its new description (profile.yaml), as profile/list shows it; null clears it.
   */
  description: string | null;
}

export interface ProfileSetDescriptionResult {
  /**
   * The profile now, as profile/list gives it.
   */
  profile: ProfileInfo;
}

export interface ProjectFacts {
  /**
   * The project's root: the top of its git repository, else the nearest directory with a project file.
   */
  root: string;
  /**
   * The project files at the root, e.g. pyproject.toml, package.json, Makefile.
   */
  manifests: string[];
  /**
   * What its lock files name, e.g. uv, pnpm.
   */
  packageManagers: string[];
  /**
   * The commands hermes tells its agents to verify a change with, run at the root, e.g. pytest, npm run test.
   */
  verifyCommands: string[];
  /**
   * Its agent instruction files: AGENTS.md, CLAUDE.md...
   */
  contextFiles: string[];
}

export interface ProjectFactsParams {
  /**
   * The directory: an absolute path to an existing one.
   */
  workspace: string;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface ProjectFactsResult {
  /**
   * The project the directory is in; null when it is in none (hermes' coding posture is then off).
   */
  facts: ProjectFacts | null;
}

export interface ProviderModels {
  /**
   * The provider as run/start and session/switchModel name it.
   */
  slug: string;
  /**
   * Its display name.
   */
  name: string;
  /**
   * Whether it is the current provider.
   */
  current: boolean;
  /**
   * A custom endpoint of the profile's config.yaml.
   */
  userDefined: boolean;
  /**
   * Its models, as hermes curates them for agents.
   */
  models: string[];
  /**
   * How many models it has; models may list fewer.
   */
  totalModels: number;
  /**
   * Whether the profile has credentials for it.
   */
  authenticated: boolean;
  /**
   * Whether account/login can sign the profile in to its account (and account/logout out); its other credentials are API keys (env/set).
   */
  signIn: boolean;
  /**
   * A user-defined endpoint's URL.
   */
  apiUrl: string | null;
  /**
   * What to know before choosing it, if anything.
   */
  warning: string | null;
}

export interface RateLimitWindow {
  /**
   * What the window allows (requests or tokens).
   */
  limit: number;
  /**
   * What is left of it.
   */
  remaining: number;
  /**
   * When it resets, in ms since the epoch (as the response said).
   */
  resetsAt: number;
}

/**
 * Reasoning or a content summary after an assistant message.
 */
export interface ReasoningAvailableEvent {
  /**
   * The event's type.
   */
  type: 'reasoning.available';
  /**
   * The reasoning.
   */
  text: string;
}

/**
 * Streamed model reasoning.
 */
export interface ReasoningDeltaEvent {
  /**
   * The event's type.
   */
  type: 'reasoning.delta';
  /**
   * The next reasoning text.
   */
  text: string;
}

export interface ReferenceCompleteParams {
  /**
   * The reference being typed, from its @ to the cursor: @, @fi, @file:src/ma, @conf.
   */
  text: string;
  /**
   * Complete in this session's workspace (the one its next turn uses).
   */
  sessionId?: string | null;
  /**
   * Complete in this directory (absolute, existing); wins over the session's.
   */
  workspace?: string | null;
  /**
   * At most this many items (1 to 200).
   */
  limit?: number;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface ReferenceCompleteResult {
  /**
   * Best first.
   */
  items: ReferenceCompletion[];
  /**
   * More matched than limit, or not every file was searched: typing more narrows them.
   */
  incomplete: boolean;
  /**
   * The directory the paths are relative to.
   */
  workspace: string;
}

export interface ReferenceCompletion {
  /**
   * The whole reference to put in place of the typed text.
   */
  text: string;
  /**
   * What to show: the keyword, or the file's or folder's name.
   */
  label: string;
  /**
   * A keyword's meaning, or the folder (workspace-relative) of a file found by name; null otherwise, and for such a file at the workspace's top.
   */
  detail: string | null;
  /**
   * reference: a keyword (@diff, @file:); file; folder: in @file: mode its text ends with / to go on typing in it.
   */
  kind: 'reference' | 'file' | 'folder';
}

/**
 * The message named @ context, which hermes read.
 */
export interface ReferencesExpandedEvent {
  /**
   * The event's type.
   */
  type: 'references.expanded';
  /**
   * The references, as typed.
   */
  references: string[];
  /**
   * hermes' warnings.
   */
  warnings: string[];
  /**
   * Rough tokens of the attached context.
   */
  injectedTokens: number;
  /**
   * Whether hermes refused to attach any of it.
   */
  blocked: boolean;
}

export interface RunCompletedNotification {
  /**
   * The run.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Per-run sequence number; always the run's last.
   */
  seq: number;
  /**
   * How the run ended.
   */
  status: 'complete' | 'interrupted' | 'error';
  /**
   * The outcome, unless status is error.
   */
  result: RunOutput | null;
  /**
   * Why it failed, when status is error.
   */
  error: RunError | null;
}

export interface RunDeltaNotification {
  /**
   * The run.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Per-run sequence number.
   */
  seq: number;
  /**
   * The next piece of assistant text.
   */
  text: string;
}

export interface RunError {
  /**
   * Why the run failed; a stable snake_case string.
   */
  type:
    | 'agent_unavailable'
    | 'agent_error'
    | 'worker_crashed'
    | 'worker_stopped'
    | 'internal_error'
    | 'context_refused'
    | 'context_unreadable';
  /**
   * Human-readable detail.
   */
  message: string;
}

export interface RunEventNotification {
  /**
   * The run.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Per-run sequence number.
   */
  seq: number;
  /**
   * What happened; hosts ignore an event type they do not know.
   */
  event:
    | ToolGeneratingEvent
    | ToolStartedEvent
    | ToolCompletedEvent
    | ToolOutputRiskEvent
    | ToolProgressEvent
    | ThinkingEvent
    | ReasoningDeltaEvent
    | ReasoningAvailableEvent
    | StatusEvent
    | StepEvent
    | TurnBoundaryEvent
    | PlanEvent
    | UsageEvent
    | UsageLimitsEvent
    | GoalEvaluatedEvent
    | CommandExpandedEvent
    | ReferencesExpandedEvent
    | ImagesAttachedEvent;
}

export interface RunInterruptResult {
  /**
   * False when the run had already finished.
   */
  interrupted: boolean;
}

export interface RunOutput {
  /**
   * The assistant's final text.
   */
  finalResponse: string | null;
  /**
   * Messages in the conversation after the run.
   */
  messageCount: number;
  /**
   * Model calls made during the run.
   */
  apiCalls: number | null;
  /**
   * Tokens the run's model calls used, as the provider reported them; null when the agent reports none.
   */
  usage: TokenUsage | null;
}

export interface RunResultResult {
  /**
   * The run.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Where it is.
   */
  status: 'running' | 'complete' | 'interrupted' | 'error';
  /**
   * Set once the run has finished without error.
   */
  result: RunOutput | null;
  /**
   * Set when status is error.
   */
  error: RunError | null;
}

export interface RunStartParams {
  /**
   * The user's message for this turn.
   */
  message: string;
  /**
   * Session to continue or create; a new id when absent.
   */
  sessionId?: string | null;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Run in a separate worker process of the profile.
   */
  workerKey?: string | null;
  /**
   * Extra system instructions for this session.
   */
  instructions?: string | null;
  /**
   * Toolsets the session's agent leaves out from this turn on, beyond the profile's agent.disabled_toolsets (kept for its later runs; [] leaves out none again), e.g. a chat that runs and changes nothing. Each must be one of hermes' toolsets.
   */
  disabledToolsets?: string[] | null;
  /**
   * How hard the model reasons, from this turn on (kept for the session's later turns); none turns reasoning off. The profile's agent.reasoning_effort until set.
   */
  reasoningEffort?:
    ('none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max' | 'ultra') | null;
  /**
   * OpenAI-style messages to use as the history instead of the session's own.
   */
  conversationHistory?:
    | {
        [k: string]: unknown;
      }[]
    | null;
  /**
   * Model for a new session (profile default otherwise).
   */
  model?: string | null;
  /**
   * Provider for a new session (profile default otherwise).
   */
  provider?: string | null;
  /**
   * Working directory for the session's tools.
   */
  workspace?: string | null;
  /**
   * Where the message came from, stored with the session.
   */
  source?: string | null;
  /**
   * Who compresses the session's context when it nears the model's window: agent (hermes' own summary; the default) or host (compression/requested). Kept for the session's later runs.
   */
  compression?: ('agent' | 'host') | null;
  /**
   * Run a leading /skill or /bundle command (command/list) the way hermes' CLI does; false sends the message as typed.
   */
  expandCommands?: boolean;
  /**
   * Compress the session's history before this turn, the way its compression setting says.
   */
  forceCompress?: boolean;
  /**
   * Expand @file:, @folder:, @diff, @staged, @git: and @url: references the way hermes' CLI does; false sends the message as typed.
   */
  expandReferences?: boolean;
  /**
   * Images attached to the message: shown to the model itself when it sees images, else described to it by hermes' vision tool.
   */
  images?: ImageInput[] | null;
  /**
   * From this turn on, approve without asking the host what hermes would ask it to approve (hermes' per-session /yolo); false asks again. Kept for the session's later turns while a worker holds it; never stored. Hard blocks and approvals.deny still refuse.
   */
  autoApprove?: boolean | null;
  /**
   * From this turn on, hold each edit hermes' file-edit tools (write_file, patch) would make until the host approves it, shown as a diff (approval/requested's edits); false writes unasked again. Kept for the session's later turns while a worker holds it; never stored.
   */
  reviewEdits?: boolean | null;
}

export interface RunStartResult {
  /**
   * The new run.
   */
  runId: string;
  /**
   * The session it runs in.
   */
  sessionId: string;
}

export interface RunStartedNotification {
  /**
   * The run.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Per-run sequence number: 1, 2, 3 ... without gaps.
   */
  seq: number;
  /**
   * The profile it runs under.
   */
  profile: string;
  /**
   * The model the agent uses.
   */
  model: string | null;
  /**
   * Set when the worker started the run itself, to hand the session background work that finished, or to run a cron job that came due; null for a host's run.
   */
  trigger: RunTrigger | null;
}

export interface RunSteerParams {
  /**
   * The run.
   */
  runId: string;
  /**
   * What the user adds while the agent works.
   */
  text: string;
}

export interface RunSteerResult {
  /**
   * False when the run had already finished or the text is blank.
   */
  accepted: boolean;
}

export interface RunTarget {
  /**
   * The run.
   */
  runId: string;
}

export interface RunTrigger {
  /**
   * What started it: a background subagent or process that finished, or a cron job that came due (cron/tick).
   */
  type: 'subagent' | 'process' | 'cron';
  /**
   * The delegation's id, the background process's, or the job's.
   */
  sourceId: string;
  /**
   * What the agent is told of it: the turn's user message; a cron job's prompt.
   */
  message: string;
}

export interface SecretRequestedNotification {
  /**
   * The run whose agent loads the skill.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Per-run sequence number.
   */
  seq: number;
  /**
   * Names this request in secret/respond.
   */
  secretId: string;
  /**
   * The environment variable the skill needs, e.g. GITHUB_TOKEN.
   */
  envVar: string;
  /**
   * What to ask the user, from the skill.
   */
  prompt: string;
  /**
   * The skill that needs it.
   */
  skillName: string;
  /**
   * Where to get the value (often a URL), from the skill.
   */
  help: string | null;
  /**
   * What the skill needs it for, from the skill.
   */
  requiredFor: string | null;
  /**
   * How long the skill waits for the value.
   */
  timeoutMs: number;
}

export interface SecretResolvedNotification {
  /**
   * The run.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Per-run sequence number.
   */
  seq: number;
  /**
   * The request that is no longer pending.
   */
  secretId: string;
  /**
   * stored (saved to the profile's .env; never sent back), skipped, failed (hermes refused to save it), timed_out, or cancelled (the run was interrupted or ended).
   */
  outcome: 'stored' | 'skipped' | 'failed' | 'timed_out' | 'cancelled';
}

export interface SecretRespondParams {
  /**
   * The run of the request.
   */
  runId: string;
  /**
   * The request being answered.
   */
  secretId: string;
  /**
   * The secret, saved to the profile's .env; null or empty skips (the skill stays unconfigured and the agent is told so).
   */
  value: string | null;
}

export interface SecretRespondResult {
  /**
   * What the answer did.
   */
  outcome: 'answered' | 'skipped';
}

export interface ServerCapabilities {
  /**
   * Every request and notification method the host may send.
   */
  methods: string[];
  /**
   * Every notification method the server may send.
   */
  notifications: string[];
  /**
   * Every run/event type the server may send.
   */
  runEvents: string[];
  /**
   * The largest frame body the server accepts.
   */
  maxBodyBytes: number;
}

export interface ServerInfo {
  /**
   * Always hermes-stdio.
   */
  name: string;
  /**
   * The hermes-stdio package version.
   */
  version: string;
}

export interface SessionArchiveParams {
  /**
   * The stored session.
   */
  sessionId: string;
  /**
   * True hides it from session/listStored; false shows it again.
   */
  archived: boolean;
  /**
   * Profile to look in if no worker holds it.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SessionArchiveResult {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * Whether it is archived now.
   */
  archived: boolean;
}

export interface SessionAutoApproveParams {
  /**
   * The session; created (or resumed) when no worker holds it.
   */
  sessionId: string;
  /**
   * Whether what would ask the host for approval runs unasked, from now on (the run in progress included), as run/start's autoApprove.
   */
  enabled: boolean;
  /**
   * Profile to ask when the session is not routed yet.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SessionAutoApproveResult {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * The session's autoApprove now.
   */
  autoApprove: boolean;
}

export interface SessionCompressParams {
  /**
   * A session a worker holds or the database knows.
   */
  sessionId: string;
  /**
   * Profile to ask when the session is not routed yet.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
  /**
   * What the summary should keep above all (hermes' /compress focus topic), at most 1000 characters.
   */
  focus?: string | null;
}

export interface SessionContextParams {
  /**
   * The session; created (or resumed) when no worker holds it.
   */
  sessionId: string;
  /**
   * Profile to ask when the session is not routed yet.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
  /**
   * Estimate this OpenAI-style history instead of the session's own.
   */
  messages?:
    | {
        [k: string]: unknown;
      }[]
    | null;
  /**
   * Estimate with these extra system instructions instead of the session's.
   */
  instructions?: string | null;
}

export interface SessionContextResult {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * The session's model.
   */
  model: string | null;
  /**
   * The model's context window in tokens, if known.
   */
  contextLength: number | null;
  /**
   * Rough tokens of the next request: history, system prompt and tools.
   */
  tokens: number;
  /**
   * Of those, what every request carries: system prompt and tools.
   */
  fixedTokens: number;
  /**
   * Of the fixed ones, the system prompt's.
   */
  systemPromptTokens: number;
  /**
   * Of the fixed ones, the tool schemas'.
   */
  toolTokens: number;
  /**
   * Messages in the estimated history.
   */
  messageCount: number;
  /**
   * Tools the agent offers the model.
   */
  toolCount: number;
  /**
   * The request's make-up as hermes' context breakdown gives it, a context meter's segments (parts with tokens only; they add up to about tokens); empty when hermes gives none.
   */
  breakdown: ContextPart[];
  /**
   * The prompt tokens the provider counted for the session's last request; null before its first in this worker, or when the provider reports none.
   */
  lastPromptTokens: number | null;
}

export interface SessionDeleteParams {
  /**
   * The stored session.
   */
  sessionId: string;
  /**
   * Profile to look in if no worker holds it.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SessionDeleteResult {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * The stored rows removed: its id and those hermes continued it under after compressions.
   */
  removedSessionIds: string[];
  /**
   * Stored messages removed with them.
   */
  messagesRemoved: number;
}

export interface SessionDestroyResult {
  /**
   * False when the session was not loaded.
   */
  destroyed: boolean;
}

export interface SessionExportParams {
  /**
   * The stored session.
   */
  sessionId: string;
  /**
   * markdown (hermes' .md export, with its front matter), html (its self-contained page) or json (the session and its messages as hermes' database holds them).
   */
  format?: 'markdown' | 'html' | 'json';
  /**
   * Mask what hermes recognises as secrets (API keys, tokens, credentials) in the messages and tool calls, as hermes sessions export --redact does.
   */
  redact?: boolean;
  /**
   * The whole conversation across hermes' compressions (its earlier ids first), not only this id's part.
   */
  lineage?: boolean;
  /**
   * Profile to look in if no worker holds it.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SessionExportResult {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * The format of content.
   */
  format: 'markdown' | 'html' | 'json';
  /**
   * The export, as hermes renders it.
   */
  content: string;
  /**
   * The messages it holds.
   */
  messageCount: number;
}

export interface SessionForkParams {
  /**
   * The session to branch off.
   */
  sessionId: string;
  /**
   * The branch's id; a new one when absent. It must be new to the profile.
   */
  newSessionId?: string | null;
  /**
   * The branch's title; when absent, the session's title numbered (Plan #2) or branch.
   */
  title?: string | null;
  /**
   * Profile to look in if no worker holds it.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SessionForkResult {
  /**
   * The branch: resume it with run/start.
   */
  sessionId: string;
  /**
   * The session it branched off.
   */
  parentSessionId: string;
  /**
   * The branch's title as saved.
   */
  title: string | null;
  /**
   * Messages copied into it.
   */
  messageCount: number;
}

export interface SessionGoalParams {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * What to do with its goal (see protocol.md).
   */
  action:
    | 'status'
    | 'set'
    | 'pause'
    | 'resume'
    | 'clear'
    | 'addSubgoal'
    | 'removeSubgoal'
    | 'clearSubgoals';
  /**
   * The goal (set) or the subgoal (addSubgoal).
   */
  text?: string | null;
  /**
   * set: the turn budget; the profile's goals.max_turns (20) otherwise.
   */
  maxTurns?: number | null;
  /**
   * removeSubgoal: which one, from 1.
   */
  index?: number | null;
  /**
   * Profile to ask when the session is not routed yet.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SessionHistoryParams {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * Profile to ask when the session is not routed yet.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
  /**
   * At most this many messages (1 to 1000), the newest before `before`; all when absent.
   */
  limit?: number | null;
  /**
   * Index (0 or more) of the message after the last one returned: the previous page's `firstIndex`; the end of the history when absent or past it.
   */
  before?: number | null;
}

export interface SessionHistoryResult {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * Its OpenAI-style messages as of its last finished turn (a run in progress adds its own when it ends), or the page of them asked for; loaded from the profile's session database when no worker holds the session.
   */
  messages: {
    [k: string]: unknown;
  }[];
  /**
   * How many messages the whole history holds.
   */
  messageCount: number;
  /**
   * Index in the whole history of messages[0] (0 without paging).
   */
  firstIndex: number;
}

export interface SessionInfo {
  /**
   * The session id.
   */
  sessionId: string;
  /**
   * Whether a worker holds the session in memory.
   */
  loaded: boolean;
  /**
   * Whether a run is in progress.
   */
  running: boolean;
  /**
   * The run in progress, if any.
   */
  runId: string | null;
  /**
   * The profile that owns the session.
   */
  profile: string | null;
  /**
   * The session's model, once its agent is built.
   */
  model: string | null;
  /**
   * Messages in the session's conversation so far.
   */
  messageCount: number | null;
  /**
   * When the session last started a run (ms since epoch).
   */
  lastUsedAt: number | null;
  /**
   * The reasoning effort run/start set for it; null: the profile's.
   */
  reasoningEffort:
    ('none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max' | 'ultra') | null;
  /**
   * Its tools' working directory: run/start's, or the one stored with it; null: the worker's.
   */
  workspace: string | null;
  /**
   * The toolsets run/start left out of its agent, beyond the profile's; null: none.
   */
  disabledToolsets: string[] | null;
  /**
   * Whether run/start's autoApprove is on: what would ask for approval runs unasked.
   */
  autoApprove: boolean;
  /**
   * Whether run/start's reviewEdits is on: file edits wait for the host's approval.
   */
  reviewEdits: boolean;
}

export interface SessionListParams {
  /**
   * Profile to list; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SessionListResult {
  /**
   * Sessions loaded in that worker (never starts one).
   */
  sessions: SessionInfo[];
}

export interface SessionListStoredParams {
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
  /**
   * Only sessions whose title or id contains this (case-insensitive).
   */
  query?: string | null;
  /**
   * Only sessions started with this run/start source, e.g. vscode.
   */
  source?: string | null;
  /**
   * List the archived ones (session/archive) instead.
   */
  archived?: boolean;
  /**
   * Only sessions whose workspace is this absolute path or a directory in it.
   */
  workspace?: string | null;
  /**
   * At most this many (1 to 200).
   */
  limit?: number;
  /**
   * Skip this many: nextOffset of the previous page.
   */
  offset?: number;
}

export interface SessionListStoredResult {
  /**
   * Most recently active first.
   */
  sessions: StoredSession[];
  /**
   * The offset of the next page; null on the last one.
   */
  nextOffset: number | null;
}

export interface SessionRenameParams {
  /**
   * The stored session.
   */
  sessionId: string;
  /**
   * Its new title; null or blank clears it.
   */
  title: string | null;
  /**
   * Profile to look in if no worker holds it.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SessionRenameResult {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * The title as saved (hermes trims it); null when cleared.
   */
  title: string | null;
}

export interface SessionReviewEditsParams {
  /**
   * The session; created (or resumed) when no worker holds it.
   */
  sessionId: string;
  /**
   * Whether its file edits wait for the host's approval, from now on (the run in progress included), as run/start's reviewEdits.
   */
  enabled: boolean;
  /**
   * Profile to ask when the session is not routed yet.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SessionReviewEditsResult {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * The session's reviewEdits now.
   */
  reviewEdits: boolean;
}

export interface SessionSearchHit {
  /**
   * The conversation, as session/listStored lists it: resume it with run/start.
   */
  sessionId: string;
  /**
   * The conversation's title, as session/listStored shows it.
   */
  title: string | null;
  /**
   * Whether the conversation is archived (session/archive).
   */
  archived: boolean;
  /**
   * The matching message's role: user, assistant or tool.
   */
  role: string;
  /**
   * The tool whose result matched; null for other roles.
   */
  toolName: string | null;
  /**
   * The part of the message around the match (hermes cuts it to about 40 words).
   */
  snippet: SnippetPart[];
  /**
   * When the message was stored (Unix seconds), as its timestamp in session/history.
   */
  timestamp: number | null;
}

export interface SessionSearchParams {
  /**
   * What to find, in hermes' full-text syntax: words (all must appear), "a phrase", OR, NOT, prefix*. At most 1,000 characters.
   */
  query: string;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
  /**
   * Only messages of these roles; every role when absent.
   */
  roles?: ('user' | 'assistant' | 'tool')[] | null;
  /**
   * Only sessions started with this run/start source, e.g. vscode.
   */
  source?: string | null;
  /**
   * relevance (hermes' ranking), or by the message's time: newest or oldest first.
   */
  order?: 'relevance' | 'newest' | 'oldest';
  /**
   * At most this many (1 to 100).
   */
  limit?: number;
  /**
   * Skip this many: nextOffset of the previous page.
   */
  offset?: number;
}

export interface SessionSearchResult {
  /**
   * One per matching message, in the order asked.
   */
  hits: SessionSearchHit[];
  /**
   * The offset of the next page; null on the last one.
   */
  nextOffset: number | null;
}

export interface SessionStatusParams {
  /**
   * The session to describe.
   */
  sessionId: string;
  /**
   * Profile to ask when the session is not routed yet.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
  /**
   * Only report a session already loaded: never start a worker for this.
   */
  ifLoaded?: boolean;
}

export interface SessionSwitchModelParams {
  /**
   * The session; created (or resumed) when no worker holds it.
   */
  sessionId: string;
  /**
   * The model for the session's next runs.
   */
  model: string;
  /**
   * Its provider; the profile's default when absent.
   */
  provider?: string | null;
  /**
   * Profile to ask when the session is not routed yet.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SessionSwitchModelResult {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * The model its next run uses.
   */
  model: string;
  /**
   * The provider that model resolved to.
   */
  provider: string | null;
  /**
   * True when a run is in progress: it finishes on the old model.
   */
  deferred: boolean;
}

export interface SessionTarget {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * Profile to ask when the session is not routed yet.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SessionTitledNotification {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * The title hermes gave it, as saved in the profile's database.
   */
  title: string;
}

export interface SessionUndoParams {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * How many of its last exchanges to take back (1 or more).
   */
  turns?: number;
  /**
   * Profile to look in if no worker holds it.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SessionUndoResult {
  /**
   * The session.
   */
  sessionId: string;
  /**
   * Exchanges taken back: fewer than asked when it had fewer.
   */
  turnsUndone: number;
  /**
   * Stored messages hidden: user, assistant and tool ones.
   */
  messagesRemoved: number;
  /**
   * The earliest taken-back user message's text, to offer for editing; null when none.
   */
  message: string | null;
}

export interface ShellExecParams {
  /**
   * The program and its arguments, run as given (no shell): for a line the user typed, ["bash", "-c", line].
   */
  command: string[];
  /**
   * Run in this directory (absolute, existing); wins over the session's.
   */
  workspace?: string | null;
  /**
   * Run in this session's workspace (the one its next turn uses), in its worker.
   */
  sessionId?: string | null;
  /**
   * Ended (SIGTERM to its process group, SIGKILL 2 s later) after this long: 1 to 600000.
   */
  timeoutMs?: number;
  /**
   * Run it with no time limit (timeoutMs is then ignored): until it exits, the request is cancelled, or its worker stops. For a host's terminal panel or a dev server it watches.
   */
  disableTimeout?: boolean;
  /**
   * Text for its stdin (UTF-8, at most 1048576 characters), closed after; null: /dev/null.
   */
  stdin?: string | null;
  /**
   * The user confirmed a command hermes rates dangerous (see command_dangerous).
   */
  approved?: boolean;
  /**
   * Push the output as it comes, as shell/output notifications carrying this id; the result's stdout and stderr are then empty.
   */
  streamId?: string | null;
  /**
   * Keep its stdin open after stdin's text, for shell/write (needs streamId).
   */
  interactive?: boolean;
  /**
   * Run it in a pseudo-terminal of this size, its controlling terminal and its stdin, stdout and stderr (output all as stdout; input by shell/write; size by shell/resize). Needs streamId; null: pipes.
   */
  terminal?: TerminalSize | null;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface ShellExecResult {
  /**
   * How it exited; null when a signal ended it.
   */
  exitCode: number | null;
  /**
   * The signal that ended it (e.g. SIGTERM), else null.
   */
  signal: string | null;
  /**
   * It ran past timeoutMs and was ended.
   */
  timedOut: boolean;
  /**
   * Its standard output (UTF-8, invalid bytes replaced): the last 1048576 bytes; empty when streamed.
   */
  stdout: string;
  /**
   * Its standard error, the same way.
   */
  stderr: string;
  /**
   * stdout or stderr lost its beginning to the limit.
   */
  truncated: boolean;
  /**
   * From its start to its end.
   */
  durationMs: number;
  /**
   * The directory it ran in.
   */
  workspace: string;
}

export interface ShellOutputNotification {
  /**
   * The streamId of the shell/exec request.
   */
  streamId: string;
  /**
   * Which of its outputs this came from.
   */
  stream: 'stdout' | 'stderr';
  /**
   * The next piece of that output, as it came (UTF-8, in order).
   */
  text: string;
}

export interface ShellResizeParams {
  /**
   * The streamId of the running shell/exec (interactive, or in a terminal).
   */
  streamId: string;
  /**
   * The terminal's new size; the program gets SIGWINCH.
   */
  size: TerminalSize;
  /**
   * The sessionId its shell/exec named, if any: the worker it runs in.
   */
  sessionId?: string | null;
  /**
   * The profile its shell/exec named; default when absent.
   */
  profile?: string | null;
  /**
   * The workerKey its shell/exec named.
   */
  workerKey?: string | null;
}

/**
 * No fields: the terminal has its new size.
 */
export type ShellResizeResult = Record<string, never>;

export interface ShellWriteParams {
  /**
   * The streamId of the running shell/exec (interactive, or in a terminal).
   */
  streamId: string;
  /**
   * Text for its input (UTF-8, at most 1048576 characters); in a terminal, what the user typed: "\r" for Enter, "\u0003" for ^C.
   */
  text?: string | null;
  /**
   * Then close its input once what is queued is written (in a terminal: ^D).
   */
  closeInput?: boolean;
  /**
   * The sessionId its shell/exec named, if any: the worker it runs in.
   */
  sessionId?: string | null;
  /**
   * The profile its shell/exec named; default when absent.
   */
  profile?: string | null;
  /**
   * The workerKey its shell/exec named.
   */
  workerKey?: string | null;
}

/**
 * No fields: the text was queued for the command, and its input closed if asked.
 */
export type ShellWriteResult = Record<string, never>;

export interface SkillCreateParams {
  /**
   * The new skill's name (its directory's).
   */
  name: string;
  /**
   * Its SKILL.md: YAML frontmatter (name, description), then text.
   */
  content: string;
  /**
   * A directory to group it in, under skills/.
   */
  category?: string | null;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SkillDeleteParams {
  /**
   * The skill's name.
   */
  name: string;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SkillDeleteResult {
  /**
   * The skill's name.
   */
  name: string;
  /**
   * The SKILL.md it had (its directory is gone).
   */
  path: string;
}

export interface SkillInfo {
  /**
   * The skill's name, as hermes and skills.disabled name it.
   */
  name: string;
  /**
   * What it does, from its SKILL.md.
   */
  description: string;
  /**
   * The directory hermes files it under; null for none.
   */
  category: string | null;
  /**
   * Whether the profile's agents may use it (hermes' skills.disabled and skills.platform_disabled.cli name it not).
   */
  enabled: boolean;
}

export interface SkillListResult {
  /**
   * Each skill hermes finds for the profile, enabled or not, by category then name.
   */
  skills: SkillInfo[];
}

export interface SkillReadParams {
  /**
   * The skill's name.
   */
  name: string;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SkillReadResult {
  /**
   * The skill's name.
   */
  name: string;
  /**
   * Its SKILL.md (absolute).
   */
  path: string;
  /**
   * The file's bytes as a SHA-256 hex digest: skill/write's check.
   */
  version: string;
  /**
   * Its text (a byte that is not UTF-8 is given as U+FFFD).
   */
  content: string;
}

export interface SkillResult {
  /**
   * The skill as it is now.
   */
  skill: SkillInfo;
}

export interface SkillSetEnabledParams {
  /**
   * The skill's name.
   */
  name: string;
  /**
   * Whether the profile's agents may use it.
   */
  enabled: boolean;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SkillUsage {
  /**
   * The skill's name.
   */
  skill: string;
  /**
   * Times the model loaded it (skill_view).
   */
  loads: number;
  /**
   * Times the model changed it (skill_manage).
   */
  edits: number;
  /**
   * When it was last loaded or changed (ms).
   */
  lastUsedAt: number | null;
}

export interface SkillWriteParams {
  /**
   * The skill's name.
   */
  name: string;
  /**
   * The new SKILL.md: YAML frontmatter (name, description), then text.
   */
  content: string;
  /**
   * The version it was edited from; when the file holds another, nothing is written.
   */
  expectedVersion?: string | null;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface SkillWriteResult {
  /**
   * The skill's name.
   */
  name: string;
  /**
   * Its SKILL.md (absolute).
   */
  path: string;
  /**
   * The file's new version.
   */
  version: string;
}

export interface SnippetPart {
  /**
   * A piece of the message, in order.
   */
  text: string;
  /**
   * Whether the piece is what the query matched.
   */
  match: boolean;
}

export interface SoulChangedNotification {
  /**
   * The profile whose SOUL.md changed: soul/read gives it.
   */
  profile: string;
  /**
   * The file's new version (soul/read's); null once it is gone or is not a regular file.
   */
  version: string | null;
}

export interface SoulReadParams {
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
}

export interface SoulReadResult {
  /**
   * The profile's SOUL.md (absolute; a symlink is not resolved).
   */
  path: string;
  /**
   * The file's content, as a SHA-256 hex digest of its bytes: soul/write's expectedVersion, soul/changed's version. Null when there is no file.
   */
  version: string | null;
  /**
   * Its text (UTF-8; a byte that is not is read as U+FFFD). "" when there is no file.
   */
  content: string;
}

export interface SoulWriteParams {
  /**
   * The new text, at most 1048576 characters. Empty: hermes' own default identity applies.
   */
  content: string;
  /**
   * The version the text was edited from (soul/read's): when the file now holds something else, nothing is written and the request fails with config_conflict. Absent: written over whatever the file holds.
   */
  expectedVersion?: string | null;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
}

export interface SoulWriteResult {
  /**
   * The file's new version.
   */
  version: string;
}

export interface SourceUsage {
  /**
   * Where sessions came from: a run/start source, cli, and so on.
   */
  source: string;
  /**
   * Sessions started from it.
   */
  sessions: number;
  /**
   * Messages they hold.
   */
  messages: number;
  /**
   * Tool calls the model made in them.
   */
  toolCalls: number;
  /**
   * Prompt tokens of their conversations.
   */
  inputTokens: number;
  /**
   * Tokens the model wrote in them.
   */
  outputTokens: number;
}

/**
 * Lifecycle messages and warnings (retries, errors).
 */
export interface StatusEvent {
  /**
   * The event's type.
   */
  type: 'status';
  /**
   * hermes' kind of message, e.g. lifecycle or warn.
   */
  kind: string;
  /**
   * The message.
   */
  message: string;
}

/**
 * A model call is about to be made.
 */
export interface StepEvent {
  /**
   * The event's type.
   */
  type: 'step';
  /**
   * Model calls of this turn so far, this one included.
   */
  apiCalls: number | null;
  /**
   * The previous model call's tool calls: name, arguments and result of each.
   */
  tools: {
    [k: string]: unknown;
  }[];
}

export interface StoredSession {
  /**
   * The id to resume it with in run/start.
   */
  sessionId: string;
  /**
   * Its title (hermes names sessions after the first turn).
   */
  title: string | null;
  /**
   * The start of its first user message.
   */
  preview: string | null;
  /**
   * Where it came from: run/start source, cli, and so on.
   */
  source: string | null;
  /**
   * The model it last ran with.
   */
  model: string | null;
  /**
   * The working directory stored with it (hermes' cwd).
   */
  workspace: string | null;
  /**
   * Messages it holds.
   */
  messageCount: number;
  /**
   * When it started (ms since the epoch).
   */
  startedAt: number | null;
  /**
   * When it last had a message (ms since the epoch).
   */
  lastActiveAt: number | null;
  /**
   * What its model calls used, over every turn so far.
   */
  usage: StoredUsage;
}

export interface StoredUsage {
  /**
   * Prompt tokens sent, over all of the conversation's model calls.
   */
  inputTokens: number;
  /**
   * Tokens the model wrote.
   */
  outputTokens: number;
  /**
   * Of the input, tokens the provider served from its cache.
   */
  cacheReadTokens: number;
  /**
   * Of the input, tokens the provider wrote to its cache.
   */
  cacheWriteTokens: number;
  /**
   * Of the output, reasoning tokens.
   */
  reasoningTokens: number;
  /**
   * Model calls made.
   */
  apiCalls: number;
  /**
   * What they cost in US dollars, as hermes estimates it; null if it priced none.
   */
  costUsd: number | null;
}

export interface SubagentEndedNotification {
  /**
   * The session whose agent delegated to it.
   */
  sessionId: string;
  /**
   * The subagent as it ended: status and completedAt.
   */
  subagent: SubagentInfo;
}

export interface SubagentInfo {
  /**
   * hermes' delegation id, as delegate_task's result names it.
   */
  subagentId: string;
  /**
   * What it was asked to do (its first 200 characters).
   */
  goal: string;
  /**
   * running while at work; else how it ended, as hermes says it (completed, interrupted, error, ...).
   */
  status: string;
  /**
   * The model it was asked to use; null for the parent's.
   */
  model: string | null;
  /**
   * When it started (ms since the epoch).
   */
  dispatchedAt: number;
  /**
   * When it ended (ms since the epoch); null while running.
   */
  completedAt: number | null;
}

export interface SubagentInterruptResult {
  /**
   * How many of the session's subagents still at work were told to stop (0: none was).
   */
  interrupted: number;
}

export interface SubagentListResult {
  /**
   * Running ones and recently finished ones.
   */
  subagents: SubagentInfo[];
}

export interface SubagentProgress {
  /**
   * hermes' name for what it did: subagent.start, subagent.thinking, subagent.tool, subagent.text, subagent.progress or subagent.complete (a later hermes may add more).
   */
  kind: string;
  /**
   * subagent.tool: the tool it called; else null.
   */
  name: string | null;
  /**
   * What hermes shows for it: the goal (start), the text it streamed (text), its thinking, the tool's argument preview, a summary of its recent tools (progress), its summary or error (complete); null when hermes gives none.
   */
  preview: string | null;
  /**
   * hermes' id for this subagent: one per child agent (each task of a batch, and each subagent a subagent starts, has its own).
   */
  childId: string | null;
  /**
   * The childId of the subagent that started this one; null for one the session's agent started.
   */
  parentChildId: string | null;
  /**
   * 0 for a subagent the session's agent started, 1 for one of its own subagents, ...
   */
  depth: number;
  /**
   * Which of the delegate_task's goals it works on (from 0).
   */
  taskIndex: number;
  /**
   * How many goals that delegate_task gave (a batch: several).
   */
  taskCount: number;
  /**
   * How many tools it has called so far.
   */
  toolCount: number | null;
  /**
   * The subagent's own session row in the profile's database, once hermes made it.
   */
  childSessionId: string | null;
  /**
   * subagent.complete: how it ended, as hermes says it (completed, failed, error, timeout, interrupted, ...); else null.
   */
  status: string | null;
  /**
   * subagent.complete: seconds it ran; else null.
   */
  durationS: number | null;
}

export interface SubagentProgressNotification {
  /**
   * The session whose agent delegated to it.
   */
  sessionId: string;
  /**
   * Its delegation id, as subagent/started named it.
   */
  subagentId: string;
  /**
   * What it did.
   */
  progress: SubagentProgress;
}

export interface SubagentStartedNotification {
  /**
   * The session whose agent delegated to it.
   */
  sessionId: string;
  /**
   * The subagent as it started (status running, or how it ended if it ended at once).
   */
  subagent: SubagentInfo;
}

export interface SudoRequestedNotification {
  /**
   * The run whose terminal command runs sudo.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Per-run sequence number.
   */
  seq: number;
  /**
   * Names this request in sudo/respond.
   */
  sudoId: string;
  /**
   * How long the command waits for the password.
   */
  timeoutMs: number;
}

export interface SudoResolvedNotification {
  /**
   * The run.
   */
  runId: string;
  /**
   * Its session.
   */
  sessionId: string;
  /**
   * Per-run sequence number.
   */
  seq: number;
  /**
   * The request that is no longer pending.
   */
  sudoId: string;
  /**
   * answered (a password was given; never sent back), declined, timed_out, or cancelled (the run was interrupted or ended).
   */
  outcome: 'answered' | 'declined' | 'timed_out' | 'cancelled';
}

export interface SudoRespondParams {
  /**
   * The run of the request.
   */
  runId: string;
  /**
   * The request being answered.
   */
  sudoId: string;
  /**
   * The user's sudo password; null declines (the command runs without one).
   */
  password: string | null;
}

export interface SudoRespondResult {
  /**
   * What the answer did.
   */
  outcome: 'answered' | 'declined';
}

export interface SupervisorStatusResult {
  /**
   * The supervisor's process id.
   */
  pid: number;
  /**
   * Milliseconds since the supervisor started.
   */
  uptimeMs: number;
  /**
   * The protocol version in use.
   */
  protocolVersion: number;
  /**
   * The Hermes home directory (the default profile).
   */
  hermesHome: string;
  /**
   * Every worker slot the supervisor knows.
   */
  workers: WorkerInfo[];
  /**
   * The worker template; null when switched off (--no-worker-template) or not supported (it needs Linux).
   */
  template: TemplateInfo | null;
}

export interface TemplateInfo {
  /**
   * Lifecycle state of the worker template.
   */
  state: 'starting' | 'ready' | 'unsafe' | 'exited' | 'failed';
  /**
   * Its process id; null when it is not running.
   */
  pid: number | null;
  /**
   * How long its imports took; null until ready.
   */
  preloadMs: number | null;
  /**
   * Modules it holds imported; null until ready.
   */
  modules: number | null;
  /**
   * Workers it has forked so far.
   */
  forks: number;
  /**
   * Times it was started again after exiting on its own (at most 3).
   */
  restarts: number;
  /**
   * Why it is unsafe or failed; null otherwise.
   */
  problem: string | null;
}

export interface TerminalSize {
  /**
   * Its height in lines: 1 to 10000.
   */
  rows: number;
  /**
   * Its width in characters: 1 to 10000.
   */
  cols: number;
}

/**
 * The agent's short status line; an empty text clears it.
 */
export interface ThinkingEvent {
  /**
   * The event's type.
   */
  type: 'thinking';
  /**
   * The status line.
   */
  text: string;
}

export interface TokenUsage {
  /**
   * Prompt tokens sent, over all of the run's model calls.
   */
  inputTokens: number;
  /**
   * Tokens the model wrote.
   */
  outputTokens: number;
  /**
   * Of the input, tokens the provider served from its cache.
   */
  cacheReadTokens: number;
  /**
   * Of the input, tokens the provider wrote to its cache.
   */
  cacheWriteTokens: number;
  /**
   * Of the output, reasoning tokens.
   */
  reasoningTokens: number;
  /**
   * Input and output together, as the provider counts them.
   */
  totalTokens: number;
  /**
   * The last request's prompt size: how full the context window is now; null if unknown.
   */
  contextTokens: number | null;
  /**
   * The model's context window, if known.
   */
  contextLength: number | null;
  /**
   * What these calls cost in US dollars, as hermes estimates it; null if it has no price.
   */
  costUsd: number | null;
}

/**
 * A tool call ended.
 */
export interface ToolCompletedEvent {
  /**
   * The event's type.
   */
  type: 'tool.completed';
  /**
   * The model's id of the call.
   */
  toolCallId: string;
  /**
   * The tool.
   */
  name: string;
  /**
   * What it returned, at most 64 KiB.
   */
  result: string | null;
  /**
   * Whether the result was cut at 64 KiB.
   */
  truncated: boolean;
  /**
   * How long it ran, from its tool.started; null when hermes gave no call id.
   */
  durationMs: number | null;
  /**
   * Whether the call failed, as hermes reads its result (a terminal command's non-zero exit, an error the tool returned); null when that could not be read.
   */
  isError: boolean | null;
  /**
   * The files it changed, for hermes' file-edit tools (write_file, patch, skill_manage); empty for other tools and for calls that changed nothing.
   */
  edits: FileEdit[];
}

/**
 * The model began writing a call of this tool; its arguments are still streaming.
 */
export interface ToolGeneratingEvent {
  /**
   * The event's type.
   */
  type: 'tool.generating';
  /**
   * The tool.
   */
  name: string;
}

export interface ToolInfo {
  /**
   * The tool, as tool.started events name it.
   */
  name: string;
  /**
   * The toolset it belongs to (an MCP server's for its tools).
   */
  toolset: string | null;
  /**
   * What the model is told it does.
   */
  description: string;
}

export interface ToolListParams {
  /**
   * The tools this session's agent offers; a new agent's when absent or not built yet.
   */
  sessionId?: string | null;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

export interface ToolListResult {
  /**
   * The tools the model is offered, by name.
   */
  tools: ToolInfo[];
  /**
   * The toolsets the agent is built with (hermes tools for the CLI platform); null: all.
   */
  enabledToolsets: string[] | null;
  /**
   * agent.disabled_toolsets: left out even so.
   */
  disabledToolsets: string[];
}

/**
 * hermes' scan found what reads like an attack in the output of a tool whose output comes from outside (web, browser and MCP tools): a prompt injection, say.
 */
export interface ToolOutputRiskEvent {
  /**
   * The event's type.
   */
  type: 'tool.outputRisk';
  /**
   * The model's id of the call.
   */
  toolCallId: string;
  /**
   * The tool.
   */
  name: string;
  /**
   * hermes' rating of the output, e.g. high.
   */
  risk: string;
  /**
   * hermes' ids of what its scan matched (e.g. prompt_injection); never the text itself.
   */
  findings: string[];
  /**
   * Whether hermes removed anything from the output the model got.
   */
  redacted: boolean;
}

/**
 * Other tool activity hermes reports (e.g. subagents).
 */
export interface ToolProgressEvent {
  /**
   * The event's type.
   */
  type: 'tool.progress';
  /**
   * hermes' name for the activity.
   */
  kind: string;
  /**
   * The tool or subagent.
   */
  name: string;
  /**
   * A short preview, if hermes gives one.
   */
  preview: string | null;
}

/**
 * A tool call begins.
 */
export interface ToolStartedEvent {
  /**
   * The event's type.
   */
  type: 'tool.started';
  /**
   * The model's id of the call.
   */
  toolCallId: string;
  /**
   * The tool.
   */
  name: string;
  /**
   * Its arguments, as hermes shows them (secrets redacted).
   */
  args: {
    [k: string]: unknown;
  };
}

export interface ToolUsage {
  /**
   * The tool's name.
   */
  tool: string;
  /**
   * Times the model called it.
   */
  calls: number;
}

export interface ToolsetInfo {
  /**
   * The toolset, as platform_toolsets and tool/list name it.
   */
  name: string;
  /**
   * hermes' title for it, e.g. Web Search & Scraping.
   */
  label: string;
  /**
   * hermes' summary of what it gives, e.g. web_search, web_extract.
   */
  description: string;
  /**
   * Whether the profile's agents get it (hermes' cli platform).
   */
  enabled: boolean;
  /**
   * The tools hermes' definition of it names, by name (tool/list: those offered).
   */
  tools: string[];
}

export interface ToolsetListResult {
  /**
   * Each toolset hermes lets the profile configure, in hermes' order.
   */
  toolsets: ToolsetInfo[];
}

export interface ToolsetResult {
  /**
   * The toolset as it is now.
   */
  toolset: ToolsetInfo;
}

export interface ToolsetSetEnabledParams {
  /**
   * The toolset's name.
   */
  name: string;
  /**
   * Whether the profile's agents get it.
   */
  enabled: boolean;
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
}

/**
 * A text block closed (tools are about to run).
 */
export interface TurnBoundaryEvent {
  /**
   * The event's type.
   */
  type: 'turn.boundary';
}

/**
 * A model call of the run returned: what the run's calls used so far.
 */
export interface UsageEvent {
  /**
   * The event's type.
   */
  type: 'usage';
  /**
   * The run's usage so far, as in run/completed.
   */
  usage: TokenUsage;
}

/**
 * A model call's response said the provider's rate limits (its x-ratelimit-* headers, as hermes reads them): each window it gave, null for one it did not.
 */
export interface UsageLimitsEvent {
  /**
   * The event's type.
   */
  type: 'usage.limits';
  /**
   * The provider hermes called, e.g. openrouter.
   */
  provider: string | null;
  /**
   * Requests, per minute.
   */
  requestsPerMinute: RateLimitWindow | null;
  /**
   * Requests, per hour.
   */
  requestsPerHour: RateLimitWindow | null;
  /**
   * Tokens, per minute.
   */
  tokensPerMinute: RateLimitWindow | null;
  /**
   * Tokens, per hour.
   */
  tokensPerHour: RateLimitWindow | null;
}

export interface UsageSummaryParams {
  /**
   * Hermes profile; default when absent.
   */
  profile?: string | null;
  /**
   * Worker isolation key.
   */
  workerKey?: string | null;
  /**
   * How far back to look, in days (1 to 3650).
   */
  days?: number;
  /**
   * Only sessions started with this run/start source, e.g. vscode.
   */
  source?: string | null;
  /**
   * The host's offset from UTC in minutes (-1440 to 1440): where daily's days begin.
   */
  utcOffsetMinutes?: number;
}

export interface UsageSummaryResult {
  /**
   * The period asked for, in days.
   */
  days: number;
  /**
   * Its start (ms): sessions started from then on count.
   */
  since: number;
  /**
   * The source filter asked for.
   */
  source: string | null;
  /**
   * The period's figures, added up.
   */
  totals: UsageTotals;
  /**
   * Per model, most tokens first.
   */
  models: ModelUsage[];
  /**
   * Per source, most sessions first.
   */
  sources: SourceUsage[];
  /**
   * Per tool, most calls first.
   */
  tools: ToolUsage[];
  /**
   * Per skill, most loads and edits first.
   */
  skills: SkillUsage[];
  /**
   * Every day of the period, oldest first, idle days too.
   */
  daily: DayUsage[];
}

export interface UsageTotals {
  /**
   * Sessions started in the period (hermes' session rows).
   */
  sessions: number;
  /**
   * Messages they hold.
   */
  messages: number;
  /**
   * Of those, the user's.
   */
  userMessages: number;
  /**
   * Of those, the model's.
   */
  assistantMessages: number;
  /**
   * Tool calls the model made.
   */
  toolCalls: number;
  /**
   * Model calls made, auxiliary ones (titles, compression) included.
   */
  apiCalls: number;
  /**
   * Prompt tokens sent.
   */
  inputTokens: number;
  /**
   * Tokens the model wrote.
   */
  outputTokens: number;
  /**
   * Of the input, tokens the provider served from its cache.
   */
  cacheReadTokens: number;
  /**
   * Of the input, tokens the provider wrote to its cache.
   */
  cacheWriteTokens: number;
  /**
   * Of the output, reasoning tokens.
   */
  reasoningTokens: number;
  /**
   * What they cost in US dollars, as hermes estimates it; null if it priced no model.
   */
  costUsd: number | null;
  /**
   * What providers reported they charged, where they do.
   */
  actualCostUsd: number;
  /**
   * The ended sessions' durations, added up.
   */
  activeSeconds: number;
  /**
   * Days (as daily counts them) on which a session started.
   */
  activeDays: number;
  /**
   * When the earliest session started (ms).
   */
  firstStartedAt: number | null;
  /**
   * When the latest session started (ms).
   */
  lastStartedAt: number | null;
}

export interface WorkerAccountLoginEndedNotification {
  /**
   * The account/login's loginId.
   */
  loginId: string;
  /**
   * The provider.
   */
  provider: string;
  /**
   * Why it failed; null when it succeeded.
   */
  error: string | null;
}

export interface WorkerBackgroundResult {
  /**
   * The sessions whose background work goes on: a background process still running, a subagent still at work, or a finished one's result waiting for its run.
   */
  sessions: string[];
}

export interface WorkerCommandsChangedNotification {
  /**
   * A digest of the files behind the profile's slash commands (each SKILL.md, bundle file and config.yaml: path, size, times, inode): equal for equal files, whichever of the profile's workers computed it.
   */
  fingerprint: string;
}

export interface WorkerExitedNotification {
  /**
   * The profile the worker served.
   */
  profile: string;
  /**
   * Its isolation key.
   */
  workerKey: string | null;
  /**
   * The process id that exited.
   */
  pid: number;
  /**
   * Exit status; null when killed by a signal or when the status is unknown.
   */
  exitCode: number | null;
  /**
   * Signal name (e.g. SIGKILL) when killed by one.
   */
  signal: string | null;
  /**
   * True when the supervisor asked it to stop.
   */
  expected: boolean;
  /**
   * Why: idle (--worker-idle-timeout), limit (stopped to make room under --max-workers), restart (worker/restart), shutdown, start_failed (it did not get ready), deleted (its profile was, by profile/delete), renamed (by profile/rename), or crashed (the supervisor did not ask it to stop).
   */
  reason:
    'idle' | 'limit' | 'restart' | 'shutdown' | 'start_failed' | 'deleted' | 'renamed' | 'crashed';
}

export interface WorkerInfo {
  /**
   * The Hermes profile the worker serves.
   */
  profile: string;
  /**
   * The isolation key; null for the profile's main worker.
   */
  workerKey: string | null;
  /**
   * OS process id; null when no process is running.
   */
  pid: number | null;
  /**
   * Lifecycle state.
   */
  state: 'starting' | 'ready' | 'stopping' | 'exited' | 'backoff';
  /**
   * Unexpected exits so far.
   */
  restarts: number;
  /**
   * When the current process started (ms since epoch).
   */
  startedAt: number | null;
  /**
   * When a request was last routed to it (ms since epoch).
   */
  lastUsedAt: number;
  /**
   * Sessions loaded in the worker, as routed by the supervisor.
   */
  sessions: number;
  /**
   * Runs in flight in the worker.
   */
  runningRuns: number;
  /**
   * How the current process started: forked from the worker template, or spawned cold; null when no process is running.
   */
  startMode: ('forked' | 'spawned') | null;
  /**
   * Why the current process was spawned cold although the template is enabled.
   */
  forkFallback: string | null;
}

export interface WorkerMcpChangedNotification {
  /**
   * The worker's MCP servers, as mcp/status gives them now that they changed.
   */
  servers: McpServerInfo[];
}

export interface WorkerMcpLoginEndedNotification {
  /**
   * The mcp/login's loginId.
   */
  loginId: string;
  /**
   * The MCP server.
   */
  name: string;
  /**
   * Why it failed; null when it succeeded.
   */
  error: string | null;
}

export interface WorkerReadyNotification {
  /**
   * Worker protocol version; must equal the supervisor's.
   */
  protocolVersion: number;
  /**
   * Worker process id.
   */
  pid: number;
  /**
   * The profile it serves.
   */
  profile: string;
  /**
   * The Python executable running the worker.
   */
  python: string;
  /**
   * forked from the template, or spawned cold.
   */
  startMode: 'forked' | 'spawned';
  /**
   * Why a forked worker replaced itself with a cold one.
   */
  forkFallback: string | null;
}

export interface WorkerRestartResult {
  /**
   * The worker after the restart.
   */
  worker: WorkerInfo;
}

export interface WorkerSetOptOutParams {
  /**
   * Notifications the host opted out of: not sent (a run's not numbered either).
   */
  notifications: string[];
  /**
   * run/event types the host opted out of: the same.
   */
  runEvents: string[];
}

export interface WorkerStartedNotification {
  /**
   * The worker, now ready (state ready): its pid, and whether it was forked or spawned cold.
   */
  worker: WorkerInfo;
}

export interface WorkerTarget {
  /**
   * Profile name; null or absent means default.
   */
  profile?: string | null;
  /**
   * Isolation key for a separate worker process.
   */
  workerKey?: string | null;
}

// ---- Inline method types (x-methods / x-notifications without a $ref) ----

export type ShutdownResult = null;

// ---- Method maps ----

/** Requests the host sends to the server (x-methods, kind "request"). */
export interface HostRequests {
  /** Start signing the profile in to a provider's account: the code and page for the user. */
  'account/login': { params: AccountLoginParams; result: AccountLoginResult };
  /** Stop a sign-in that is still waiting for the user; it stores nothing. */
  'account/loginCancel': { params: AccountLoginCancelParams; result: AccountLoginCancelResult };
  /** Remove the profile's sign-in to a provider's account. */
  'account/logout': { params: AccountLogoutParams; result: AccountLogoutResult };
  /** Answer an approval/requested: the waiting tool call runs or is blocked. */
  'approval/respond': { params: ApprovalRespondParams; result: ApprovalRespondResult };
  /** A file checkpoint against the directory's files now. */
  'checkpoint/diff': { params: CheckpointDiffParams; result: CheckpointDiffResult };
  /** A project directory's file checkpoints, taken before the profile's agents changed it. */
  'checkpoint/list': { params: CheckpointListParams; result: CheckpointListResult };
  /** Put a checkpoint's files back (the directory, or one file); hermes snapshots first. */
  'checkpoint/restore': { params: CheckpointRestoreParams; result: CheckpointRestoreResult };
  /** Answer a clarify/requested: the agent's waiting question gets the answer. */
  'clarify/respond': { params: ClarifyRespondParams; result: ClarifyRespondResult };
  /** The profile's slash commands (skills and skill bundles), scanned afresh. */
  'command/list': { params: WorkerTarget; result: CommandListResult };
  /** Answer a compression/requested with the compressed conversation, or an error. */
  'compression/respond': { params: CompressionRespondParams; result: CompressionRespondResult };
  /** The profile's settings (its config.yaml), hermes' defaults and the managed ones. */
  'config/read': { params: WorkerTarget; result: ConfigReadResult };
  /** Change the profile's settings, keeping the file's comments and layout. */
  'config/write': { params: ConfigWriteParams; result: ConfigWriteResult };
  /** Schedule a prompt, as an agent's cronjob tool does. */
  'cron/create': { params: CronCreateParams; result: CronJobResult };
  /** The profile's cron jobs, paused ones included. */
  'cron/list': { params: WorkerTarget; result: CronListResult };
  /** What a cron job's last runs gave, as hermes saved it, newest first. */
  'cron/output': { params: CronOutputParams; result: CronOutputResult };
  /** Pause a cron job: it does not run until resumed. */
  'cron/pause': { params: CronPauseParams; result: CronJobResult };
  /** Remove a cron job. */
  'cron/remove': { params: CronJobParams; result: CronJobResult };
  /** Resume a paused cron job. */
  'cron/resume': { params: CronJobParams; result: CronJobResult };
  /** Run a cron job now, as a run of its own: its agent's approvals are asked in it. */
  'cron/run': { params: CronRunParams; result: RunStartResult };
  /** Fire the profile's due cron jobs now, as hermes' scheduler tick does: a run each. */
  'cron/tick': { params: WorkerTarget; result: CronTickResult };
  /** Change a cron job's schedule, prompt, name, repeat, skills or delivery. */
  'cron/update': { params: CronUpdateParams; result: CronJobResult };
  /** The profile's environment variables (API keys, tokens...): which are set, and where from; no secret's value. */
  'env/list': { params: WorkerTarget; result: EnvListResult };
  /** Remove a variable from the profile's .env and hermes' other credential stores. */
  'env/remove': { params: EnvRemoveParams; result: EnvRemoveResult };
  /** Save a variable in the profile's .env, as hermes saves a credential. */
  'env/set': { params: EnvSetParams; result: EnvVarResult };
  /** Opens the session; must be the first request. */
  'initialize': { params: InitializeParams; result: InitializeResult };
  /** Connect the profile's MCP servers that are not connected (failed, or listed since). */
  'mcp/connect': { params: WorkerTarget; result: McpStatusResult };
  /** Start signing the profile in to an OAuth MCP server: the URL to send the user to. */
  'mcp/login': { params: McpLoginParams; result: McpLoginResult };
  /** Hand a sign-in the URL the browser was sent back to; mcp/loginCompleted follows. */
  'mcp/loginCallback': { params: McpLoginCallbackParams; result: McpLoginCallbackResult };
  /** Sign the profile out of an OAuth MCP server: its tokens removed, its connection dropped. */
  'mcp/logout': { params: McpLogoutParams; result: McpLogoutResult };
  /** The profile's MCP servers as its worker sees them: connected, failed, and so on. */
  'mcp/status': { params: WorkerTarget; result: McpStatusResult };
  /** Add an entry to a memory store, as the agent's memory tool does. */
  'memory/add': { params: MemoryAddParams; result: MemoryStoreResult };
  /** What the profile's agents remember across sessions: its notes and the user's profile. */
  'memory/list': { params: WorkerTarget; result: MemoryListResult };
  /** Remove a memory entry, named by its whole text. */
  'memory/remove': { params: MemoryRemoveParams; result: MemoryStoreResult };
  /** Change a memory entry, named by its whole text. */
  'memory/replace': { params: MemoryReplaceParams; result: MemoryStoreResult };
  /** The models the profile can use, by provider, for a model picker. */
  'model/list': { params: ModelListParams; result: ModelListResult };
  /** One request to a model outside any conversation, e.g. a commit message for a diff. */
  'model/oneShot': { params: ModelOneShotParams; result: ModelOneShotResult };
  /** The profile's hermes plugins, each loaded or not, and whether its config enables it. */
  'plugin/list': { params: WorkerTarget; result: PluginListResult };
  /** Enable or disable a plugin for the profile (hermes' plugins.enabled and .disabled). */
  'plugin/setEnabled': { params: PluginSetEnabledParams; result: PluginResult };
  /** Kill a background process a session's agent started. */
  'process/kill': { params: ProcessKillParams; result: ProcessKillResult };
  /** The background processes a session's agent started, running or recently finished. */
  'process/list': { params: SessionTarget; result: ProcessListResult };
  /** Make a new profile as hermes profile create does (fresh, or cloned from another). */
  'profile/create': { params: ProfileCreateParams; result: ProfileCreateResult };
  /** Delete a profile as hermes profile delete does, once its workers have stopped. */
  'profile/delete': { params: ProfileDeleteParams; result: ProfileDeleteResult };
  /** Pack a profile into a .tar.gz as hermes profile export does, its secrets left out. */
  'profile/export': { params: ProfileExportParams; result: ProfileExportResult };
  /** Make a profile from an archive as hermes profile import does. */
  'profile/import': { params: ProfileImportParams; result: ProfileImportResult };
  /** The profiles in the Hermes home, read from disk; never starts a worker. */
  'profile/list': { params: EmptyParams; result: ProfileListResult };
  /** Rename a profile as hermes profile rename does, once its workers have stopped. */
  'profile/rename': { params: ProfileRenameParams; result: ProfileRenameResult };
  /** Make a profile the one hermes' CLI runs without -p, as hermes profile use does. */
  'profile/setActive': { params: ProfileSetActiveParams; result: ProfileSetActiveResult };
  /** Set or clear a profile's description, as hermes' dashboard does; no worker needed. */
  'profile/setDescription': { params: ProfileSetDescriptionParams; result: ProfileSetDescriptionResult };
  /** A directory's project as hermes' agents see it: root, project files, verify commands. */
  'project/facts': { params: ProjectFactsParams; result: ProjectFactsResult };
  /** The @ references (keywords, files, folders) that complete the one being typed. */
  'reference/complete': { params: ReferenceCompleteParams; result: ReferenceCompleteResult };
  /** Ask a running run to stop; it ends with run/completed status interrupted. */
  'run/interrupt': { params: RunTarget; result: RunInterruptResult };
  /** A run's status and result; finished runs are kept for a bounded time and count. */
  'run/result': { params: RunTarget; result: RunResultResult };
  /** Start a turn; answered at once, then the run's notifications follow. */
  'run/start': { params: RunStartParams; result: RunStartResult };
  /** Add text for a running agent without interrupting it; it reads it with its next tool result. */
  'run/steer': { params: RunSteerParams; result: RunSteerResult };
  /** Answer a secret/requested with the secret a skill needs, or skip it. */
  'secret/respond': { params: SecretRespondParams; result: SecretRespondResult };
  /** Hide a stored session from session/listStored, or show it again. */
  'session/archive': { params: SessionArchiveParams; result: SessionArchiveResult };
  /** Approve, or stop approving, a session's flagged commands without asking, from now on. */
  'session/autoApprove': { params: SessionAutoApproveParams; result: SessionAutoApproveResult };
  /** Compress a session's history now, as a run of its own (no user message). */
  'session/compress': { params: SessionCompressParams; result: RunStartResult };
  /** Delete a stored session for good: its messages, and the rows compression continued it in. */
  'session/delete': { params: SessionDeleteParams; result: SessionDeleteResult };
  /** Interrupt any run and forget a loaded session (its history stays in the DB). */
  'session/destroy': { params: SessionTarget; result: SessionDestroyResult };
  /** Rough token count of a session's next request against its model's context window. */
  'session/estimateContext': { params: SessionContextParams; result: SessionContextResult };
  /** A stored session as Markdown, HTML or JSON, as hermes sessions export renders it. */
  'session/export': { params: SessionExportParams; result: SessionExportResult };
  /** Branch a session: a new stored session with a copy of its messages, as hermes' /branch. */
  'session/fork': { params: SessionForkParams; result: SessionForkResult };
  /** Set, inspect, pause, resume or clear a session's standing goal and its subgoals. */
  'session/goal': { params: SessionGoalParams; result: GoalInfo };
  /** A session's messages, from its worker or the profile's session database. */
  'session/history': { params: SessionHistoryParams; result: SessionHistoryResult };
  /** Sessions loaded in a profile's worker; never starts a worker. */
  'session/list': { params: SessionListParams; result: SessionListResult };
  /** The profile's stored sessions, most recently active first, to browse and resume. */
  'session/listStored': { params: SessionListStoredParams; result: SessionListStoredResult };
  /** Set or clear a stored session's title. */
  'session/rename': { params: SessionRenameParams; result: SessionRenameResult };
  /** Hold, or stop holding, a session's file edits for the host's review, from now on. */
  'session/reviewEdits': { params: SessionReviewEditsParams; result: SessionReviewEditsResult };
  /** Find messages in the profile's stored sessions, with hermes' full-text search. */
  'session/search': { params: SessionSearchParams; result: SessionSearchResult };
  /** Describe a session; with ifLoaded it never starts a worker. */
  'session/status': { params: SessionStatusParams; result: SessionInfo };
  /** Switch a session's model (and provider) from its next run on. */
  'session/switchModel': { params: SessionSwitchModelParams; result: SessionSwitchModelResult };
  /** Take back a session's last exchanges, as hermes' /undo (kept on disk for audit). */
  'session/undo': { params: SessionUndoParams; result: SessionUndoResult };
  /** Run a command in the profile's environment, outside any turn (a user's !command). */
  'shell/exec': { params: ShellExecParams; result: ShellExecResult };
  /** Change the size of a running shell/exec's terminal. */
  'shell/resize': { params: ShellResizeParams; result: ShellResizeResult };
  /** Send input to a running interactive or terminal shell/exec, or close it. */
  'shell/write': { params: ShellWriteParams; result: ShellWriteResult };
  /** Stops every worker; then only exit is accepted. */
  'shutdown': { params: EmptyParams; result: ShutdownResult };
  /** Make a new skill from its SKILL.md through hermes' own checks (skill_manage's create). */
  'skill/create': { params: SkillCreateParams; result: SkillWriteResult };
  /** Delete a skill's directory as skill_manage's delete does (a pinned one is refused). */
  'skill/delete': { params: SkillDeleteParams; result: SkillDeleteResult };
  /** The profile's skills, each enabled for its agents or not. */
  'skill/list': { params: WorkerTarget; result: SkillListResult };
  /** A skill's SKILL.md, with its version, for a skill editor. */
  'skill/read': { params: SkillReadParams; result: SkillReadResult };
  /** Enable or disable a skill for the profile's agents (hermes' skills.disabled). */
  'skill/setEnabled': { params: SkillSetEnabledParams; result: SkillResult };
  /** Replace a skill's SKILL.md through hermes' own checks (skill_manage's edit). */
  'skill/write': { params: SkillWriteParams; result: SkillWriteResult };
  /** The profile's SOUL.md, the agent's identity in its system prompt; never starts a worker. */
  'soul/read': { params: SoulReadParams; result: SoulReadResult };
  /** Replace the profile's SOUL.md, for the sessions it starts from then on. */
  'soul/write': { params: SoulWriteParams; result: SoulWriteResult };
  /** Tell every subagent a session's agent started in the background, still at work, to stop. */
  'subagent/interrupt': { params: SessionTarget; result: SubagentInterruptResult };
  /** The subagents a session's agent started in the background, running or recently finished. */
  'subagent/list': { params: SessionTarget; result: SubagentListResult };
  /** Answer a sudo/requested with the user's sudo password, or decline. */
  'sudo/respond': { params: SudoRespondParams; result: SudoRespondResult };
  /** Supervisor and worker health, without touching any worker. */
  'supervisor/status': { params: EmptyParams; result: SupervisorStatusResult };
  /** The tools the model is offered: a session's agent's, or a new agent's of the profile. */
  'tool/list': { params: ToolListParams; result: ToolListResult };
  /** The profile's toolsets, each enabled for its agents or not. */
  'toolset/list': { params: WorkerTarget; result: ToolsetListResult };
  /** Enable or disable a toolset for the profile's agents (hermes' platform_toolsets.cli). */
  'toolset/setEnabled': { params: ToolsetSetEnabledParams; result: ToolsetResult };
  /** What the profile's sessions used over a period, per model, source, tool and day. */
  'usage/summary': { params: UsageSummaryParams; result: UsageSummaryResult };
  /** Stop a profile's worker (gracefully), clear its crash back-off and start it again. */
  'worker/restart': { params: WorkerTarget; result: WorkerRestartResult };
}

/** Notifications the host sends to the server (x-methods, kind "notification"); values are params. */
export interface HostNotifications {
  /** Cancel a pending request; it is answered with request_cancelled. */
  '$/cancelRequest': CancelParams;
  /** Exit now: code 0 after shutdown, 1 otherwise. */
  'exit': EmptyParams;
  /** The host got the initialize result. */
  'initialized': EmptyParams;
}

/** Notifications the server sends to the host (x-notifications); values are params. */
export interface ServerNotifications {
  /** A profile's auth.json changed on disk, whoever changed it (an account/login or account/logout, hermes auth in a terminal, hermes renewing a token). */
  'account/changed': AccountChangedNotification;
  /** An account/login ended: signed in (the tokens are in the profile), or failed, with why. */
  'account/loginCompleted': AccountLoginCompletedNotification;
  /** A tool call waits for the host's approval of a dangerous command. */
  'approval/requested': ApprovalRequestedNotification;
  /** An approval request is no longer pending (answered, timed out, cancelled). */
  'approval/resolved': ApprovalResolvedNotification;
  /** The agent asks the user a clarifying question and waits for the answer. */
  'clarify/requested': ClarifyRequestedNotification;
  /** A clarifying question is no longer pending (answered, timed out, cancelled). */
  'clarify/resolved': ClarifyResolvedNotification;
  /** The files behind the profile's slash commands changed (a skill, a bundle, config.yaml), whoever changed them: command/list gives the commands. */
  'command/listChanged': CommandListChangedNotification;
  /** A run waits for the host to compress its session's conversation. */
  'compression/requested': CompressionRequestedNotification;
  /** A compression request is no longer pending (compressed, failed, timed out, cancelled). */
  'compression/resolved': CompressionResolvedNotification;
  /** A profile's config.yaml changed on disk, whoever changed it (a config/write, the user's editor, hermes' CLI): config/read gives it. */
  'config/changed': ConfigChangedNotification;
  /** A profile's cron jobs changed on disk, whoever changed them (an agent's cronjob tool, a cron/* request, hermes' gateway running one): cron/list gives them. */
  'cron/listChanged': CronListChangedNotification;
  /** A profile's .env changed on disk, whoever changed it (an env/set, a secret/respond, the user's editor): env/list gives its variables. Each worker of the profile applies the change before its next agent build. */
  'env/changed': EnvChangedNotification;
  /** An mcp/login ended: signed in (the server connects with its new tokens), or failed, with why. */
  'mcp/loginCompleted': McpLoginCompletedNotification;
  /** A worker's MCP servers changed status (connecting, connected, failed), or config.yaml lists others: all of them, as mcp/status gives them. */
  'mcp/statusChanged': McpStatusChangedNotification;
  /** A profile's memory store changed on disk, whoever changed it (an agent's memory tool, a memory/* request, the user's editor): memory/list gives it. */
  'memory/changed': MemoryChangedNotification;
  /** A background process a session's agent started has ended (exited or killed). */
  'process/exited': ProcessExitedNotification;
  /** A session's agent started a background process. */
  'process/started': ProcessStartedNotification;
  /** The profiles changed: one was made, removed or renamed, or the model, provider or description profile/list shows for one (profile/list gives them). */
  'profile/listChanged': ProfileListChangedNotification;
  /** The run ended; exactly one per started run, always its last. */
  'run/completed': RunCompletedNotification;
  /** Assistant text, streamed as the model produces it. */
  'run/delta': RunDeltaNotification;
  /** Tool, status, reasoning and other agent activity. */
  'run/event': RunEventNotification;
  /** The run's agent is ready and the turn begins. */
  'run/started': RunStartedNotification;
  /** A skill the agent loads needs a secret the profile lacks; the skill waits. */
  'secret/requested': SecretRequestedNotification;
  /** A secret request is no longer pending (stored, skipped, failed, timed out, cancelled). */
  'secret/resolved': SecretResolvedNotification;
  /** hermes titled a session after one of its first exchanges. */
  'session/titled': SessionTitledNotification;
  /** The next output of a shell/exec request that asked for it to be streamed. */
  'shell/output': ShellOutputNotification;
  /** A profile's SOUL.md changed on disk, whoever changed it (a soul/write, the user's editor): soul/read gives it. */
  'soul/changed': SoulChangedNotification;
  /** A subagent a session's agent started in the background has ended. */
  'subagent/ended': SubagentEndedNotification;
  /** A subagent a session's agent started in the background did something (its tools, text, thinking), during its parent's run or after it. */
  'subagent/progress': SubagentProgressNotification;
  /** A session's agent started a subagent in the background (an async delegate_task). */
  'subagent/started': SubagentStartedNotification;
  /** A terminal command runs sudo and waits for the user's password. */
  'sudo/requested': SudoRequestedNotification;
  /** A sudo password request is no longer pending (answered, declined, timed out, cancelled). */
  'sudo/resolved': SudoResolvedNotification;
  /** A worker process exited. */
  'worker/exited': WorkerExitedNotification;
  /** A worker process is ready: sent before anything else from it. */
  'worker/started': WorkerStartedNotification;
}

export type HostRequestMethod = keyof HostRequests;
export type HostNotificationMethod = keyof HostNotifications;
export type ServerNotificationMethod = keyof ServerNotifications;

export const HOST_REQUEST_METHODS: readonly HostRequestMethod[] = [
  'account/login',
  'account/loginCancel',
  'account/logout',
  'approval/respond',
  'checkpoint/diff',
  'checkpoint/list',
  'checkpoint/restore',
  'clarify/respond',
  'command/list',
  'compression/respond',
  'config/read',
  'config/write',
  'cron/create',
  'cron/list',
  'cron/output',
  'cron/pause',
  'cron/remove',
  'cron/resume',
  'cron/run',
  'cron/tick',
  'cron/update',
  'env/list',
  'env/remove',
  'env/set',
  'initialize',
  'mcp/connect',
  'mcp/login',
  'mcp/loginCallback',
  'mcp/logout',
  'mcp/status',
  'memory/add',
  'memory/list',
  'memory/remove',
  'memory/replace',
  'model/list',
  'model/oneShot',
  'plugin/list',
  'plugin/setEnabled',
  'process/kill',
  'process/list',
  'profile/create',
  'profile/delete',
  'profile/export',
  'profile/import',
  'profile/list',
  'profile/rename',
  'profile/setActive',
  'profile/setDescription',
  'project/facts',
  'reference/complete',
  'run/interrupt',
  'run/result',
  'run/start',
  'run/steer',
  'secret/respond',
  'session/archive',
  'session/autoApprove',
  'session/compress',
  'session/delete',
  'session/destroy',
  'session/estimateContext',
  'session/export',
  'session/fork',
  'session/goal',
  'session/history',
  'session/list',
  'session/listStored',
  'session/rename',
  'session/reviewEdits',
  'session/search',
  'session/status',
  'session/switchModel',
  'session/undo',
  'shell/exec',
  'shell/resize',
  'shell/write',
  'shutdown',
  'skill/create',
  'skill/delete',
  'skill/list',
  'skill/read',
  'skill/setEnabled',
  'skill/write',
  'soul/read',
  'soul/write',
  'subagent/interrupt',
  'subagent/list',
  'sudo/respond',
  'supervisor/status',
  'tool/list',
  'toolset/list',
  'toolset/setEnabled',
  'usage/summary',
  'worker/restart',
];
export const HOST_NOTIFICATION_METHODS: readonly HostNotificationMethod[] = [
  '$/cancelRequest',
  'exit',
  'initialized',
];
export const SERVER_NOTIFICATION_METHODS: readonly ServerNotificationMethod[] = [
  'account/changed',
  'account/loginCompleted',
  'approval/requested',
  'approval/resolved',
  'clarify/requested',
  'clarify/resolved',
  'command/listChanged',
  'compression/requested',
  'compression/resolved',
  'config/changed',
  'cron/listChanged',
  'env/changed',
  'mcp/loginCompleted',
  'mcp/statusChanged',
  'memory/changed',
  'process/exited',
  'process/started',
  'profile/listChanged',
  'run/completed',
  'run/delta',
  'run/event',
  'run/started',
  'secret/requested',
  'secret/resolved',
  'session/titled',
  'shell/output',
  'soul/changed',
  'subagent/ended',
  'subagent/progress',
  'subagent/started',
  'sudo/requested',
  'sudo/resolved',
  'worker/exited',
  'worker/started',
];
/** Server notifications that belong to one run (schema runScoped): runId, sessionId, seq. */
export type RunNotificationMethod = 'approval/requested' | 'approval/resolved' | 'clarify/requested' | 'clarify/resolved' | 'compression/requested' | 'compression/resolved' | 'run/completed' | 'run/delta' | 'run/event' | 'run/started' | 'secret/requested' | 'secret/resolved' | 'sudo/requested' | 'sudo/resolved';
export const RUN_NOTIFICATION_METHODS: readonly RunNotificationMethod[] = [
  'approval/requested',
  'approval/resolved',
  'clarify/requested',
  'clarify/resolved',
  'compression/requested',
  'compression/resolved',
  'run/completed',
  'run/delta',
  'run/event',
  'run/started',
  'secret/requested',
  'secret/resolved',
  'sudo/requested',
  'sudo/resolved',
];

/** Error codes by their stable `data.type` (schema x-errors). */
export const ERROR_CODES = {
  'parse_error': -32700,
  'invalid_request': -32600,
  'method_not_found': -32601,
  'invalid_params': -32602,
  'internal_error': -32603,
  'server_not_initialized': -32002,
  'request_cancelled': -32800,
  'shutting_down': -32000,
  'message_too_large': -32003,
  'unsupported_protocol': -32004,
  'invalid_profile': -32010,
  'unknown_profile': -32011,
  'unknown_session': -32012,
  'unknown_run': -32013,
  'session_busy': -32014,
  'unknown_approval': -32015,
  'unknown_clarify': -32016,
  'unknown_compression': -32017,
  'unknown_sudo': -32018,
  'unknown_secret': -32019,
  'worker_crashed': -32020,
  'worker_unavailable': -32021,
  'worker_timeout': -32022,
  'agent_unavailable': -32023,
  'agent_error': -32024,
  'agent_runtime_stale': -32025,
  'worker_limit': -32026,
  'worker_overloaded': -32027,
  'profile_unreadable': -32028,
  'unknown_cron_job': -32029,
  'config_conflict': -32030,
  'config_read_only': -32031,
  'unknown_memory_entry': -32032,
  'unknown_skill': -32033,
  'unknown_toolset': -32034,
  'command_dangerous': -32035,
  'command_blocked': -32036,
  'too_many_commands': -32037,
  'profile_exists': -32038,
  'command_not_running': -32039,
  'command_busy': -32040,
  'skill_exists': -32041,
  'unknown_mcp_server': -32042,
  'unknown_mcp_login': -32043,
  'mcp_login_failed': -32044,
  'unknown_account_login': -32045,
  'account_login_failed': -32046,
  'unknown_plugin': -32047,
  'model_call_failed': -32048,
} as const;
export type ErrorDataType = keyof typeof ERROR_CODES;
