/**
 * Answers a run's host asks (approval, clarify, compression, sudo, secret) with the
 * caller's callbacks. Guarantees: every ask gets an answer even when the callback throws
 * or returns an answer the server refuses (`invalid_params`) — approval denies, clarify
 * says what went wrong, compression sends the error, sudo and secret decline — and an
 * answer the server no longer wants is dropped silently (its `…/resolved` notification
 * already says why).
 */

import type { SupervisorConnection } from './connection.js';
import { HermesStdioError } from './errors.js';
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
    conn,
    'onApproval',
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
    conn,
    'onClarify',
    question,
    answer,
    // Any text is a valid answer: say what went wrong rather than leave the agent waiting
    // out hermes' clarify timeout (an hour by default).
    (err): string => `[the host could not ask the user: ${err instanceof Error ? err.message : String(err)}]`,
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
    conn,
    'onCompression',
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
  answerWith(conn, 'onSudo', request, give, (): null => null, (password) =>
    conn.request('sudo/respond', { runId, sudoId, password }),
  );
}

export function answerSecret(
  conn: SupervisorConnection,
  request: SecretRequestedNotification,
  give: NonNullable<CollectRunOptions['onSecret']>,
): void {
  const { runId, secretId } = request;
  answerWith(conn, 'onSecret', request, give, (): null => null, (value) =>
    conn.request('secret/respond', { runId, secretId, value }),
  );
}

/**
 * Sends what `decide` returns, or what `fallback` makes of its error (reported as
 * `<callback> threw`). An answer the server refuses as `invalid_params` (the callback
 * returned something malformed) is reported and replaced by the fallback, so the ask does
 * not wait out its timeout. Any other refusal means the ask is not pending any more
 * (timed out, run ended, connection gone): dropped, its `…/resolved` says so.
 */
function answerWith<R, A>(
  conn: SupervisorConnection,
  callback: string,
  request: R,
  decide: (request: R) => A | Promise<A>,
  fallback: (err: unknown) => A,
  send: (answer: A) => Promise<unknown>,
): void {
  const failed = (err: unknown): A => {
    conn.report.log('error', `${callback} threw`, err);
    return fallback(err);
  };
  void Promise.resolve()
    .then(() => decide(request))
    .then(undefined, failed)
    .then(async (answer) => {
      try {
        await send(answer);
      } catch (err) {
        if (!(err instanceof HermesStdioError) || err.type !== 'invalid_params') throw err;
        conn.report.log('error', `the server refused what ${callback} returned`, err);
        await send(fallback(err));
      }
    })
    .catch(() => {
      /* not pending any more */
    });
}
