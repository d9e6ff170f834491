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
  answerWith(
    request,
    decide,
    // A callback that throws denies: nothing dangerous runs on an error.
    (err): ApprovalAnswer => ({ decision: 'deny', reason: `host error: ${String(err)}` }),
    (answer) => conn.request('approval/respond', { runId, approvalId, ...answer }),
  );
}

export function answerClarify(
  conn: SupervisorConnection,
  question: ClarifyRequestedNotification,
  answer: NonNullable<CollectRunOptions['onClarify']>,
): void {
  const { runId, clarifyId } = question;
  answerWith(
    question,
    answer,
    // Any text is a valid answer: say what went wrong rather than leave the agent waiting
    // out hermes' clarify timeout (an hour by default).
    (err): string => {
      conn.report.log('error', 'onClarify threw', err);
      return `[the host could not ask the user: ${err instanceof Error ? err.message : String(err)}]`;
    },
    (text) => conn.request('clarify/respond', { runId, clarifyId, answer: text }),
  );
}

export function answerCompression(
  conn: SupervisorConnection,
  request: CompressionRequestedNotification,
  compress: NonNullable<CollectRunOptions['onCompression']>,
): void {
  const { runId, compressionId } = request;
  answerWith(
    request,
    compress,
    (err): CompressionAnswer => ({ error: `host error: ${String(err)}` }),
    (answer) => conn.request('compression/respond', { runId, compressionId, ...answer }),
  );
}

export function answerSudo(
  conn: SupervisorConnection,
  request: SudoRequestedNotification,
  give: NonNullable<CollectRunOptions['onSudo']>,
): void {
  const { runId, sudoId } = request;
  answerWith(request, give, (): null => null, (password) => conn.request('sudo/respond', { runId, sudoId, password }));
}

export function answerSecret(
  conn: SupervisorConnection,
  request: SecretRequestedNotification,
  give: NonNullable<CollectRunOptions['onSecret']>,
): void {
  const { runId, secretId } = request;
  answerWith(request, give, (): null => null, (value) => conn.request('secret/respond', { runId, secretId, value }));
}

/**
 * Sends what `decide` returns, or what `fallback` makes of its error. An answer the
 * server no longer wants (timed out, run ended) is dropped: its `…/resolved` says so.
 */
function answerWith<R, A>(
  request: R,
  decide: (request: R) => A | Promise<A>,
  fallback: (err: unknown) => A,
  send: (answer: A) => Promise<unknown>,
): void {
  void Promise.resolve()
    .then(() => decide(request))
    .catch(fallback)
    .then(send)
    .catch(() => {
      /* not pending any more */
    });
}
