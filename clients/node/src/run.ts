/**
 * Run collection: gathers one run's notifications (matched by `runId`) until its
 * `run/completed`, answering host asks with the caller's callbacks. Guarantees: resolves
 * for every final status; rejects only on a closed connection or `run_timeout` (which also
 * sends `run/interrupt`); `runToCompletion` subscribes before `run/start` (and
 * `compressToCompletion` before `session/compress`), so nothing is missed, and its deadline
 * and signal cover that request too; subscriptions are always released.
 */

import type { SupervisorConnection } from './connection.js';
import { HermesStdioError } from './errors.js';
import {
  RUN_NOTIFICATION_METHODS,
  type ApprovalRequestedNotification,
  type ApprovalResolvedNotification,
  type ClarifyRequestedNotification,
  type ClarifyResolvedNotification,
  type CompressionRequestedNotification,
  type CompressionResolvedNotification,
  type RunCompletedNotification,
  type RunDeltaNotification,
  type RunEventNotification,
  type RunNotificationMethod,
  type RunStartedNotification,
  type RunStartParams,
  type RunStartResult,
  type SessionCompressParams,
  type SecretRequestedNotification,
  type SecretResolvedNotification,
  type ServerNotifications,
  type SudoRequestedNotification,
  type SudoResolvedNotification,
} from './generated/protocol.js';
import { answerApproval, answerClarify, answerCompression, answerSecret, answerSudo } from './host-asks.js';
import type { CollectedRun, CollectRunOptions } from './run-types.js';
import type { Disposable, RequestOptions } from './types.js';

// The run-scoped notifications come from the generated lists (schema runScoped), so a
// new run notification needs no change here.
type RunMethod = RunNotificationMethod;
type RunNotification = ServerNotifications[RunMethod];
const RUN_METHODS: readonly RunMethod[] = RUN_NOTIFICATION_METHODS;

type Feed = (method: RunMethod, n: RunNotification) => void;

/** `run/start`: answered at once with the ids; the run's notifications follow. */
export async function startRun(
  conn: SupervisorConnection,
  params: RunStartParams,
  options?: RequestOptions,
): Promise<RunStartResult> {
  const { runId, sessionId } = await conn.request('run/start', params, options);
  return { runId, sessionId };
}

/** A request the server answers by starting a run: `run/start` or `session/compress`. */
export type RunStarter = 'run/start' | 'session/compress';

/** Subscribe, then `run/start`, then collect; notifications that beat the answer are buffered. */
export function runToCompletion(
  conn: SupervisorConnection,
  params: RunStartParams,
  options: CollectRunOptions,
): Promise<CollectedRun> {
  return startedToCompletion(conn, 'run/start', (o) => startRun(conn, params, o), options);
}

/** `session/compress`, collected as {@link runToCompletion} collects a turn. */
export function compressToCompletion(
  conn: SupervisorConnection,
  params: SessionCompressParams,
  options: CollectRunOptions,
): Promise<CollectedRun> {
  const start = async (o: RequestOptions): Promise<RunStartResult> => {
    const { runId, sessionId } = await conn.request('session/compress', params, o);
    return { runId, sessionId };
  };
  return startedToCompletion(conn, 'session/compress', start, options);
}

async function startedToCompletion(
  conn: SupervisorConnection,
  method: RunStarter,
  start: (options: RequestOptions) => Promise<RunStartResult>,
  options: CollectRunOptions,
): Promise<CollectedRun> {
  const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
  const buffered: Array<[RunMethod, RunNotification]> = [];
  let feed: Feed | undefined;
  const subs = RUN_METHODS.map((m) =>
    conn.onNotification(m, (n: RunNotification) => (feed ? feed(m, n) : buffered.push([m, n]))),
  );
  try {
    const ids = await startBefore(method, start, options, deadline);
    return await collect(
      conn,
      ids,
      options,
      method,
      (f) => {
        feed = f;
        for (const [m, n] of buffered.splice(0)) f(m, n);
      },
      deadline,
    );
  } finally {
    for (const s of subs) s.dispose();
  }
}

/**
 * The request that starts the run, cancelled when `options.signal` aborts or `deadline`
 * passes before it is answered (a worker can take long to start). Cancelling also interrupts
 * a run the worker already accepted, so nothing is left running unobserved.
 */
async function startBefore(
  method: RunStarter,
  start: (options: RequestOptions) => Promise<RunStartResult>,
  options: CollectRunOptions,
  deadline: number | undefined,
): Promise<RunStartResult> {
  const ac = new AbortController();
  let timedOut = false;
  const timer =
    deadline === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          ac.abort();
        }, Math.max(0, deadline - Date.now()));
  const onAbort = (): void => ac.abort();
  if (options.signal?.aborted) ac.abort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await start({ signal: ac.signal });
  } catch (err) {
    if (timedOut) {
      throw HermesStdioError.client(
        'run_timeout',
        `${method} was not answered within ${options.timeoutMs} ms`,
        method,
        err,
      );
    }
    throw err;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** Collect a run already started; notifications that arrived before this call are missed. */
export async function collectRun(
  conn: SupervisorConnection,
  ids: RunStartResult,
  options: CollectRunOptions,
): Promise<CollectedRun> {
  let subs: Disposable[] = [];
  try {
    return await collect(conn, ids, options, 'collectRun', (f) => {
      subs = RUN_METHODS.map((m) => conn.onNotification(m, (n: RunNotification) => f(m, n)));
    });
  } finally {
    for (const s of subs) s.dispose();
  }
}

/**
 * Collect each run a worker starts itself to hand a session background work that finished
 * (`run/started` with a `trigger`): `handler` gets its `run/started` and the run's
 * collection, subscribed before any later notification of it is read, so nothing is missed.
 */
export function onTriggeredRun(
  conn: SupervisorConnection,
  options: CollectRunOptions,
  handler: (started: RunStartedNotification, run: Promise<CollectedRun>) => void,
): Disposable {
  return conn.onNotification('run/started', (n: RunStartedNotification) => {
    if (!n.trigger) return;
    const run = collectRun(conn, { runId: n.runId, sessionId: n.sessionId }, options).then((r) => ({
      ...r,
      started: r.started ?? n,
    }));
    conn.report.guard(() => handler(n, run), 'onTriggeredRun handler threw');
  });
}

/**
 * Gathers the run's notifications (fed through `attach`) until its `run/completed`. Its
 * close and timeout errors name `caller` as their `method`: what the host called.
 */
function collect(
  conn: SupervisorConnection,
  { runId, sessionId }: RunStartResult,
  options: CollectRunOptions,
  caller: RunStarter | 'collectRun',
  attach: (feed: Feed) => void,
  deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs,
): Promise<CollectedRun> {
  const deltas: RunDeltaNotification[] = [];
  const events: RunEventNotification[] = [];
  const approvals: Array<ApprovalRequestedNotification | ApprovalResolvedNotification> = [];
  const questions: Array<ClarifyRequestedNotification | ClarifyResolvedNotification> = [];
  const compressions: Array<CompressionRequestedNotification | CompressionResolvedNotification> = [];
  const sudoRequests: Array<SudoRequestedNotification | SudoResolvedNotification> = [];
  const secretRequests: Array<SecretRequestedNotification | SecretResolvedNotification> = [];
  let started: RunStartedNotification | undefined;
  return new Promise<CollectedRun>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const interrupt = (): void => {
      conn.request('run/interrupt', { runId }).catch(() => {});
    };
    const cleanup = (): void => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', interrupt);
      closeSub.dispose();
    };
    const closeSub = conn.onClosed(() => {
      cleanup();
      void conn.closedError(caller, `run ${runId}`).then(reject);
    });
    if (deadline !== undefined) {
      timer = setTimeout(() => {
        cleanup();
        interrupt();
        reject(HermesStdioError.client('run_timeout', `run ${runId} did not complete within ${options.timeoutMs} ms`, caller));
      }, Math.max(0, deadline - Date.now()));
    }
    if (options.signal?.aborted) interrupt();
    else options.signal?.addEventListener('abort', interrupt, { once: true });

    attach((method, n) => {
      if (n.runId !== runId) return;
      switch (method) {
        case 'run/started':
          started = n as RunStartedNotification;
          break;
        case 'run/delta':
          deltas.push(n as RunDeltaNotification);
          conn.report.guard(() => options.onDelta?.(n as RunDeltaNotification), 'onDelta threw');
          break;
        case 'run/event':
          events.push(n as RunEventNotification);
          conn.report.guard(() => options.onEvent?.(n as RunEventNotification), 'onEvent threw');
          break;
        case 'approval/requested': {
          const request = n as ApprovalRequestedNotification;
          approvals.push(request);
          if (options.onApproval) answerApproval(conn, request, options.onApproval);
          break;
        }
        case 'approval/resolved':
          approvals.push(n as ApprovalResolvedNotification);
          break;
        case 'clarify/requested': {
          const question = n as ClarifyRequestedNotification;
          questions.push(question);
          if (options.onClarify) answerClarify(conn, question, options.onClarify);
          break;
        }
        case 'clarify/resolved':
          questions.push(n as ClarifyResolvedNotification);
          break;
        case 'compression/requested': {
          const request = n as CompressionRequestedNotification;
          compressions.push(request);
          if (options.onCompression) answerCompression(conn, request, options.onCompression);
          break;
        }
        case 'compression/resolved':
          compressions.push(n as CompressionResolvedNotification);
          break;
        case 'sudo/requested': {
          const request = n as SudoRequestedNotification;
          sudoRequests.push(request);
          if (options.onSudo) answerSudo(conn, request, options.onSudo);
          break;
        }
        case 'sudo/resolved':
          sudoRequests.push(n as SudoResolvedNotification);
          break;
        case 'secret/requested': {
          const request = n as SecretRequestedNotification;
          secretRequests.push(request);
          if (options.onSecret) answerSecret(conn, request, options.onSecret);
          break;
        }
        case 'secret/resolved':
          secretRequests.push(n as SecretResolvedNotification);
          break;
        case 'run/completed': {
          cleanup();
          const ordered = [...deltas].sort((a, b) => a.seq - b.seq);
          resolve({
            runId,
            sessionId,
            text: ordered.map((d) => d.text).join(''),
            deltas: ordered,
            events,
            approvals,
            questions,
            compressions,
            sudoRequests,
            secretRequests,
            started,
            completed: n as RunCompletedNotification,
          });
          break;
        }
      }
    });
  });
}
