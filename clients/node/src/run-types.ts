/**
 * The types of run collection: what `runToCompletion`/`collectRun` accept and return
 * (no runtime code). All of them are public, re-exported from `index.ts`.
 */

import type { HermesStdioClient } from './client.js'; // for {@link}
import type {
  ApprovalRequestedNotification,
  ApprovalResolvedNotification,
  ApprovalRespondParams,
  ClarifyRequestedNotification,
  ClarifyResolvedNotification,
  CompressionRequestedNotification,
  CompressionResolvedNotification,
  CompressionRespondParams,
  RunCompletedNotification,
  RunDeltaNotification,
  RunEventNotification,
  RunStartedNotification,
  SecretRequestedNotification,
  SecretResolvedNotification,
  SudoRequestedNotification,
  SudoResolvedNotification,
} from './generated/protocol.js';

/** A `run/event`'s `event`: a union tagged by `type` (hosts ignore types they do not know). */
export type RunEvent = RunEventNotification['event'];

export interface CollectRunOptions {
  /** Called with each `run/delta` as it arrives. */
  onDelta?: (delta: RunDeltaNotification) => void;
  /** Called with each `run/event` as it arrives. */
  onEvent?: (event: RunEventNotification) => void;
  /**
   * Reject with `run_timeout` (and send `run/interrupt`) if no `run/completed` arrives in time.
   * In {@link HermesStdioClient.runToCompletion} it counts from the call, so it covers the
   * wait for the `run/start` answer too (a worker still starting); if that is what runs out,
   * `run/start` is cancelled.
   */
  timeoutMs?: number;
  /**
   * Aborting sends `run/interrupt`; the promise still resolves with the run's `run/completed`.
   * In {@link HermesStdioClient.runToCompletion}, aborting before `run/start` is answered
   * cancels it instead (which also interrupts a run the worker already accepted) and rejects
   * with code -32800 (`request_cancelled`, or `request_aborted` if it was not sent yet).
   */
  signal?: AbortSignal;
  /**
   * Answers the run's `approval/requested` (a dangerous command waits for it, or, with
   * `reviewEdits`, a file edit whose diff is in its `edits`); the answer is
   * sent with `approval/respond`. Without it, answer from your own `onNotification` handler:
   * an unanswered request times out (hermes' `approvals.timeout`) and the command is blocked.
   */
  onApproval?: (request: ApprovalRequestedNotification) => ApprovalAnswer | Promise<ApprovalAnswer>;
  /**
   * Answers the agent's `clarify/requested` (sent with `clarify/respond`). Without it, answer
   * from your own `onNotification` handler; unanswered, the question times out. A callback
   * that throws (or returns what `clarify/respond` refuses) answers
   * `[the host could not ask the user: <error message>]`, so the agent goes on at once
   * instead of waiting out hermes' clarify timeout.
   */
  onClarify?: (question: ClarifyRequestedNotification) => string | Promise<string>;
  /**
   * Compresses the conversation when the run sends `compression/requested` (sessions started
   * with `compression: 'host'`): return the compressed `messages`, or an `error`; a callback
   * that throws sends its error. The answer goes out with `compression/respond`.
   */
  onCompression?: (
    request: CompressionRequestedNotification,
  ) => CompressionAnswer | Promise<CompressionAnswer>;
  /**
   * Answers a terminal command's `sudo/requested` with the user's sudo password, or `null` to
   * decline (sent with `sudo/respond`); a callback that throws declines. Without it, answer from
   * your own `onNotification` handler; unanswered, the command runs without a password.
   */
  onSudo?: (request: SudoRequestedNotification) => string | null | Promise<string | null>;
  /**
   * Answers a skill's `secret/requested` with the value of the variable it needs (show it as a
   * password field), or `null` to skip (sent with `secret/respond`); hermes saves a value to the
   * profile's `.env`. A callback that throws skips. Unanswered, the skill stays unconfigured.
   */
  onSecret?: (request: SecretRequestedNotification) => string | null | Promise<string | null>;
}

/** What {@link CollectRunOptions.onCompression} returns. */
export type CompressionAnswer = Pick<CompressionRespondParams, 'messages' | 'error'>;

/** What {@link CollectRunOptions.onApproval} decides. */
export type ApprovalAnswer = Pick<ApprovalRespondParams, 'decision' | 'reason'>;

export interface CollectedRun {
  runId: string;
  sessionId: string;
  /**
   * All delta texts joined, in `seq` order; empty for a client that opted out of
   * `run/delta` at `initialize` (the answer is then `completed.result.finalResponse`).
   */
  text: string;
  deltas: RunDeltaNotification[];
  events: RunEventNotification[];
  /** The run's `approval/requested` and `approval/resolved` notifications, in order. */
  approvals: Array<ApprovalRequestedNotification | ApprovalResolvedNotification>;
  /** The run's `clarify/requested` and `clarify/resolved` notifications, in order. */
  questions: Array<ClarifyRequestedNotification | ClarifyResolvedNotification>;
  /** The run's `compression/requested` and `compression/resolved` notifications, in order. */
  compressions: Array<CompressionRequestedNotification | CompressionResolvedNotification>;
  /** The run's `sudo/requested` and `sudo/resolved` notifications, in order. */
  sudoRequests: Array<SudoRequestedNotification | SudoResolvedNotification>;
  /** The run's `secret/requested` and `secret/resolved` notifications, in order. */
  secretRequests: Array<SecretRequestedNotification | SecretResolvedNotification>;
  started: RunStartedNotification | undefined;
  /** The run's last notification; check `completed.status` (`complete` | `interrupted` | `error`). */
  completed: RunCompletedNotification;
}
