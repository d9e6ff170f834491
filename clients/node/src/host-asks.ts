/**
 * Answers a run's host asks (approval, clarify, compression, sudo, secret) with the
 * caller's callbacks. Guarantees: every ask gets an answer even when the callback throws —
 * approval denies, clarify says what went wrong, compression sends the error, sudo and
 * secret decline — and an answer the server no longer wants is dropped silently (its
 * `…/resolved` notification already says why).
 */

import type { SupervisorConnection } from './connection.js';
import type {
  ApprovalRequestedNotification,
  ClarifyRequestedNotification,
  CompressionRequestedNotification,
  SecretRequestedNotification,
  SudoRequestedNotification,
} from './generated/protocol.js';
import type { ApprovalAnswer, CollectRunOptions, CompressionAnswer } from './run-types.js';

export function answerApproval(
  conn: SupervisorConnection,
  request: ApprovalRequestedNotification,
  decide: NonNullable<CollectRunOptions['onApproval']>,
): void {
  const { runId, approvalId } = request;
  // A callback that throws denies: nothing dangerous runs on an error.
  void Promise.resolve()
    .then(() => decide(request))
    .catch((err: unknown): ApprovalAnswer => ({ decision: 'deny', reason: `host error: ${String(err)}` }))
    .then((answer) => conn.request('approval/respond', { runId, approvalId, ...answer }))
    .catch(() => {
      /* not pending any more (timed out, run ended): approval/resolved already says so */
    });
}

export function answerClarify(
  conn: SupervisorConnection,
  question: ClarifyRequestedNotification,
  answer: NonNullable<CollectRunOptions['onClarify']>,
): void {
  const { runId, clarifyId } = question;
  void Promise.resolve()
    .then(() => answer(question))
    // Any text is a valid answer: say what went wrong rather than leave the agent waiting
    // out hermes' clarify timeout (an hour by default).
    .catch((err: unknown): string => {
      conn.report.log('error', 'onClarify threw', err);
      return `[the host could not ask the user: ${err instanceof Error ? err.message : String(err)}]`;
    })
    .then((text) => conn.request('clarify/respond', { runId, clarifyId, answer: text }))
    .catch(() => {
      /* not pending any more (timed out, run ended): clarify/resolved already says so */
    });
}

export function answerCompression(
  conn: SupervisorConnection,
  request: CompressionRequestedNotification,
  compress: NonNullable<CollectRunOptions['onCompression']>,
): void {
  const { runId, compressionId } = request;
  void Promise.resolve()
    .then(() => compress(request))
    .catch((err: unknown): CompressionAnswer => ({ error: `host error: ${String(err)}` }))
    .then((answer) => conn.request('compression/respond', { runId, compressionId, ...answer }))
    .catch(() => {
      /* not pending any more (timed out, run ended): compression/resolved already says so */
    });
}

export function answerSudo(
  conn: SupervisorConnection,
  request: SudoRequestedNotification,
  give: NonNullable<CollectRunOptions['onSudo']>,
): void {
  const { runId, sudoId } = request;
  answerOrNull(request, give, (password) => conn.request('sudo/respond', { runId, sudoId, password }));
}

export function answerSecret(
  conn: SupervisorConnection,
  request: SecretRequestedNotification,
  give: NonNullable<CollectRunOptions['onSecret']>,
): void {
  const { runId, secretId } = request;
  answerOrNull(request, give, (value) => conn.request('secret/respond', { runId, secretId, value }));
}

/** Sends what `give` returns, or null (decline, skip) when it throws. */
function answerOrNull<R>(
  request: R,
  give: (request: R) => string | null | Promise<string | null>,
  send: (value: string | null) => Promise<unknown>,
): void {
  void Promise.resolve()
    .then(() => give(request))
    .catch((): null => null)
    .then(send)
    .catch(() => {
      /* not pending any more (timed out, run ended): its resolved notification says so */
    });
}
