/**
 * `HermesStdioClient`, the package's public face: a thin shell that delegates to the
 * connection (`connection.ts`), the lifecycle (`lifecycle.ts`) and run collection
 * (`run.ts`). Guarantees: every failure is a HermesStdioError, and `shutdown()` is
 * idempotent.
 */

import type { ChildProcess } from 'node:child_process';
import type { MessageConnection } from 'vscode-jsonrpc/node';

import { SupervisorConnection } from './connection.js';
import type { HermesStdioError } from './errors.js'; // for {@link}
import type {
  ClientInfo,
  HostNotifications,
  HostRequests,
  InitializeParams,
  InitializeResult,
  RunStartedNotification,
  RunStartParams,
  RunStartResult,
  ServerNotifications,
  SessionCompressParams,
} from './generated/protocol.js';
import * as lifecycle from './lifecycle.js';
import * as runs from './run.js';
import type { CollectedRun, CollectRunOptions } from './run-types.js';
import type { Disposable, ParamsArg, ProcessExit, RequestOptions, SpawnOptions } from './types.js';

/**
 * A hermes-stdio supervisor running as our child process, spoken to with LSP-framed
 * JSON-RPC 2.0 over its stdin/stdout.
 *
 * Lifecycle: `await HermesStdioClient.spawn()` → `await initialize()` → requests →
 * `await shutdown()`. Every failure is a {@link HermesStdioError}.
 */
export class HermesStdioClient {
  readonly process: ChildProcess;
  readonly connection: MessageConnection;
  /** Resolves once the child process has exited (never rejects). */
  readonly exited: Promise<ProcessExit>;
  /**
   * Resolves once the connection is closed: stdout ended and every message read from it
   * was dispatched (or the process is gone, or its output broke the protocol).
   */
  readonly whenClosed: Promise<void>;

  private readonly conn: SupervisorConnection;
  private shutdownPromise: Promise<ProcessExit> | undefined;

  private constructor(child: ChildProcess, opts: SpawnOptions) {
    this.conn = new SupervisorConnection(child, opts);
    this.process = this.conn.process;
    this.connection = this.conn.connection;
    this.exited = this.conn.exited;
    this.whenClosed = this.conn.whenClosed;
  }

  /** Spawn the supervisor and connect to it. Rejects with `spawn_failed` if it cannot start. */
  static async spawn(opts: SpawnOptions = {}): Promise<HermesStdioClient> {
    return new HermesStdioClient(await lifecycle.spawnChild(opts), opts);
  }

  /**
   * The last 64 KiB (of UTF-8, cut between characters) the child wrote to stderr, when
   * spawned with `stderr: 'pipe'`.
   */
  get stderrTail(): string {
    return this.conn.stderrTail;
  }

  /** True once the connection closed (see {@link whenClosed}). */
  get isClosed(): boolean {
    return this.conn.isClosed;
  }

  /**
   * Open the session: `initialize` with this client's protocol version, then `initialized`.
   */
  initialize(
    clientInfo?: ClientInfo | null,
    extra: Pick<InitializeParams, 'capabilities' | 'options'> = {},
  ): Promise<InitializeResult> {
    return lifecycle.initialize(this.conn, clientInfo, extra);
  }

  /** Send a typed request; rejects with {@link HermesStdioError}. */
  request<M extends keyof HostRequests>(
    method: M,
    ...args: ParamsArg<HostRequests[M]['params']>
  ): Promise<HostRequests[M]['result']> {
    return this.conn.request(method, ...args);
  }

  /** Send any request, bypassing the generated types (for experiments and tests). */
  requestUntyped(method: string, params?: unknown, options: RequestOptions = {}): Promise<unknown> {
    return this.conn.requestUntyped(method, params, options);
  }

  /** Send a typed host→server notification. */
  notify<N extends keyof HostNotifications>(method: N, params: HostNotifications[N]): Promise<void> {
    return this.conn.notify(method, params);
  }

  /** Subscribe to a server notification; any number of handlers per method. */
  onNotification<N extends keyof ServerNotifications>(
    method: N,
    handler: (params: ServerNotifications[N]) => void,
  ): Disposable {
    return this.conn.onNotification(method, handler);
  }

  /** Subscribe to every server notification, including ones not in the schema. */
  onAnyNotification(handler: (method: string, params: unknown) => void): Disposable {
    return this.conn.onAnyNotification(handler);
  }

  /** `run/start`: answered at once with the ids; the run's notifications follow. */
  startRun(params: RunStartParams, options?: RequestOptions): Promise<RunStartResult> {
    return runs.startRun(this.conn, params, options);
  }

  /**
   * Start a run and collect its `run/started`, `run/delta` and `run/event` notifications
   * until its `run/completed`. Listens before sending `run/start`, so nothing is missed.
   * Resolves for every final status (check `completed.status`); rejects if the connection
   * closes or `timeoutMs` (counted from this call, `run/start` included) passes first.
   */
  runToCompletion(params: RunStartParams, options: CollectRunOptions = {}): Promise<CollectedRun> {
    return runs.runToCompletion(this.conn, params, options);
  }

  /**
   * `session/compress`: compress a session's history now, as a run of its own, collected like
   * {@link runToCompletion} (`onCompression` answers a host-compressed session's request);
   * `completed.result.messageCount` is what is left.
   */
  compressToCompletion(
    params: SessionCompressParams,
    options: CollectRunOptions = {},
  ): Promise<CollectedRun> {
    return runs.compressToCompletion(this.conn, params, options);
  }

  /**
   * Collect the notifications of a run that was already started (with {@link startRun})
   * until its `run/completed`. Notifications that arrived before this call are missed;
   * prefer {@link runToCompletion}.
   */
  collectRun(ids: RunStartResult, options: CollectRunOptions = {}): Promise<CollectedRun> {
    return runs.collectRun(this.conn, ids, options);
  }

  /**
   * Collect every run a worker starts itself (its `run/started` has a `trigger`: a subagent
   * or a background command finished after its turn): `handler` gets the `run/started` and
   * the run, collected as {@link runToCompletion} collects one (`options` apply to each).
   */
  onTriggeredRun(
    handler: (started: RunStartedNotification, run: Promise<CollectedRun>) => void,
    options: CollectRunOptions = {},
  ): Disposable {
    return runs.onTriggeredRun(this.conn, options, handler);
  }

  /**
   * Orderly stop: `shutdown` request, `exit` notification, then wait (at most
   * `timeoutMs`, default 10 s) for the process to exit. On timeout the process is
   * killed and `shutdown_timeout` is thrown. Resolves with the exit status (0 expected).
   * Idempotent: later calls share the first call's outcome (and its `timeoutMs`).
   */
  shutdown(options: { timeoutMs?: number } = {}): Promise<ProcessExit> {
    // Two teardown paths calling it at once must not turn the second `shutdown` request's
    // `shutting_down` answer into a SIGKILL of a supervisor that is exiting cleanly.
    return (this.shutdownPromise ??= lifecycle.shutdown(this.conn, options.timeoutMs ?? 10_000));
  }

  /** Kill the process without the shutdown handshake. */
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    this.conn.kill(signal);
  }

  /** Kill (if needed) and release everything; safe to call more than once. */
  async dispose(): Promise<void> {
    this.kill('SIGKILL');
    await this.exited;
    await this.whenClosed;
  }
}
