import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import {
  CancellationTokenSource,
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';

import { HermesStdioError } from './errors.js';
import {
  PROTOCOL_VERSION,
  type ApprovalRequestedNotification,
  type ApprovalResolvedNotification,
  type ApprovalRespondParams,
  type ClarifyRequestedNotification,
  type ClarifyResolvedNotification,
  type ClientInfo,
  type CompressionRequestedNotification,
  type CompressionResolvedNotification,
  type CompressionRespondParams,
  type HostNotifications,
  type HostRequests,
  type InitializeParams,
  type InitializeResult,
  type RunCompletedNotification,
  type RunDeltaNotification,
  type RunEventNotification,
  type RunStartedNotification,
  type RunStartParams,
  type RunStartResult,
  type RunNotificationMethod,
  type ServerNotifications,
  type SudoRequestedNotification,
  type SudoResolvedNotification,
  type SecretRequestedNotification,
  type SecretResolvedNotification,
  RUN_NOTIFICATION_METHODS,
} from './generated/protocol.js';

export interface SpawnOptions {
  /** Executable to run; default `hermes-stdio` (looked up on PATH). */
  command?: string;
  /** Arguments, passed through as is (e.g. `['--hermes-home', dir]`). Default none (= `serve`). */
  args?: readonly string[];
  /** Environment for the child; default `process.env`. Passed through as is (not merged). */
  env?: NodeJS.ProcessEnv;
  /** Working directory for the child. */
  cwd?: string;
  /**
   * What to do with the child's stderr (its logs): `'pipe'` (default) keeps a bounded tail
   * (see {@link HermesStdioClient.stderrTail}) and calls `onStderr`; `'inherit'` shares ours.
   */
  stderr?: 'pipe' | 'inherit' | 'ignore';
  /** Called with each stderr chunk when `stderr` is `'pipe'`. */
  onStderr?: (text: string) => void;
}

export interface RequestOptions {
  /** Aborting sends `$/cancelRequest`; the server answers with `request_cancelled`. */
  signal?: AbortSignal;
}

/** Params are optional for methods whose params have no required field. */
type ParamsArg<P> = {} extends P ? [params?: P, options?: RequestOptions] : [params: P, options?: RequestOptions];

export interface Disposable {
  dispose(): void;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CollectRunOptions {
  /** Called with each `run/delta` as it arrives. */
  onDelta?: (delta: RunDeltaNotification) => void;
  /** Called with each `run/event` as it arrives. */
  onEvent?: (event: RunEventNotification) => void;
  /** Reject with `run_timeout` (and send `run/interrupt`) if no `run/completed` arrives in time. */
  timeoutMs?: number;
  /** Aborting sends `run/interrupt`; the promise still resolves with the run's `run/completed`. */
  signal?: AbortSignal;
  /**
   * Answers the run's `approval/requested` (a dangerous command waits for it); the answer is
   * sent with `approval/respond`. Without it, answer from your own `onNotification` handler:
   * an unanswered request times out (hermes' `approvals.timeout`) and the command is blocked.
   */
  onApproval?: (request: ApprovalRequestedNotification) => ApprovalAnswer | Promise<ApprovalAnswer>;
  /**
   * Answers the agent's `clarify/requested` (sent with `clarify/respond`). Without it, answer
   * from your own `onNotification` handler; unanswered, the question times out.
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
  /** All delta texts joined, in `seq` order. */
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

type AnyHandler = (params: unknown) => void;
// The run-scoped notifications come from the generated lists (schema runScoped), so a
// new run notification needs no change here.
type RunMethod = RunNotificationMethod;
type RunNotification = ServerNotifications[RunMethod];
const RUN_METHODS: readonly RunMethod[] = RUN_NOTIFICATION_METHODS;

const STDERR_TAIL_BYTES = 64 * 1024;

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

  private readonly handlers = new Map<string, Set<AnyHandler>>();
  private readonly anyHandlers = new Set<(method: string, params: unknown) => void>();
  private stderrChunks: string[] = [];
  private stderrBytes = 0;
  private exitInfo: ProcessExit | undefined;
  private closed = false;
  private resolveClosed!: () => void;
  /** Resolves once the connection is closed (stdout drained or the process gone). */
  readonly whenClosed: Promise<void> = new Promise<void>((resolve) => (this.resolveClosed = resolve));

  private constructor(child: ChildProcess, opts: SpawnOptions) {
    this.process = child;
    if (!child.stdin || !child.stdout) throw new Error('child process has no stdio pipes');
    this.exited = new Promise<ProcessExit>((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
    });
    // Writing to a dead child raises EPIPE on stdin; the connection reports it instead.
    child.stdin.on('error', () => {});
    if (child.stderr) {
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (text: string) => {
        this.stderrChunks.push(text);
        this.stderrBytes += text.length;
        while (this.stderrBytes > STDERR_TAIL_BYTES && this.stderrChunks.length > 1) {
          this.stderrBytes -= this.stderrChunks.shift()!.length;
        }
        opts.onStderr?.(text);
      });
    }

    this.connection = createMessageConnection(
      new StreamMessageReader(child.stdout),
      new StreamMessageWriter(child.stdin),
    );
    // One star handler dispatching to any number of typed subscribers
    // (vscode-jsonrpc keeps only one handler per method).
    this.connection.onNotification((method: string, params: unknown) => {
      for (const h of this.handlers.get(method) ?? []) h(params);
      for (const h of this.anyHandlers) h(method, params);
    });
    this.connection.onClose(() => this.markClosed());
    this.connection.onError(() => {
      /* read/write errors end in onClose or a process exit */
    });
    // Prefer 'close' (stdio drained, so no late message is lost); fall back shortly after
    // 'exit' in case a grandchild still holds the pipes open.
    child.once('close', () => this.markClosed());
    void this.exited.then(() => setTimeout(() => this.markClosed(), 1_000).unref());
    this.connection.listen();
  }

  /** Spawn the supervisor and connect to it. Rejects with `spawn_failed` if it cannot start. */
  static async spawn(opts: SpawnOptions = {}): Promise<HermesStdioClient> {
    const command = opts.command ?? 'hermes-stdio';
    const child = spawnProcess(command, [...(opts.args ?? [])], {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ['pipe', 'pipe', opts.stderr ?? 'pipe'],
      windowsHide: true,
    });
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => {
        child.off('spawn', onSpawn);
        reject(HermesStdioError.client('spawn_failed', `cannot spawn ${command}: ${err.message}`, undefined, err));
      };
      const onSpawn = (): void => {
        child.off('error', onError);
        resolve();
      };
      child.once('error', onError);
      child.once('spawn', onSpawn);
    });
    child.on('error', () => {
      /* e.g. kill() failures after spawn; exit is reported through `exited` */
    });
    return new HermesStdioClient(child, opts);
  }

  /** The last ~64 KiB the child wrote to stderr (when spawned with `stderr: 'pipe'`). */
  get stderrTail(): string {
    return this.stderrChunks.join('');
  }

  /** True once the connection closed or the process exited. */
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Open the session: `initialize` with this client's protocol version, then `initialized`.
   */
  async initialize(
    clientInfo: ClientInfo,
    extra: Pick<InitializeParams, 'capabilities' | 'options'> = {},
  ): Promise<InitializeResult> {
    const result = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      clientInfo,
      capabilities: extra.capabilities ?? {},
      options: extra.options ?? {},
    });
    if (result.protocolVersion !== PROTOCOL_VERSION) {
      throw HermesStdioError.client(
        'unsupported_protocol',
        `server speaks protocol ${result.protocolVersion}, this client ${PROTOCOL_VERSION}`,
        'initialize',
      );
    }
    await this.notify('initialized', {});
    return result;
  }

  /** Send a typed request; rejects with {@link HermesStdioError}. */
  async request<M extends keyof HostRequests>(
    method: M,
    ...args: ParamsArg<HostRequests[M]['params']>
  ): Promise<HostRequests[M]['result']> {
    const [params, options] = args;
    return (await this.requestUntyped(method, params ?? {}, options)) as HostRequests[M]['result'];
  }

  /** Send any request, bypassing the generated types (for experiments and tests). */
  async requestUntyped(method: string, params?: unknown, options: RequestOptions = {}): Promise<unknown> {
    if (this.closed) {
      throw HermesStdioError.client('connection_closed', this.closedMessage(), method);
    }
    const { signal } = options;
    if (signal?.aborted) throw HermesStdioError.client('request_aborted', 'request aborted before it was sent', method);
    const cts = new CancellationTokenSource();
    const onAbort = (): void => cts.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return params === undefined
        ? await this.connection.sendRequest(method, cts.token)
        : await this.connection.sendRequest(method, params, cts.token);
    } catch (err) {
      const e = HermesStdioError.from(err, method);
      if (e.type === 'connection_closed') {
        throw new HermesStdioError(e.code, `${e.message} (${this.closedMessage()})`, e.data, method, { cause: err });
      }
      throw e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      cts.dispose();
    }
  }

  /** Send a typed host→server notification. */
  async notify<N extends keyof HostNotifications>(method: N, params: HostNotifications[N]): Promise<void> {
    try {
      await this.connection.sendNotification(method, params);
    } catch (err) {
      throw HermesStdioError.from(err, method);
    }
  }

  /** Subscribe to a server notification; any number of handlers per method. */
  onNotification<N extends keyof ServerNotifications>(
    method: N,
    handler: (params: ServerNotifications[N]) => void,
  ): Disposable {
    let set = this.handlers.get(method);
    if (!set) this.handlers.set(method, (set = new Set()));
    const h = handler as AnyHandler;
    set.add(h);
    return { dispose: () => void set.delete(h) };
  }

  /** Subscribe to every server notification, including ones not in the schema. */
  onAnyNotification(handler: (method: string, params: unknown) => void): Disposable {
    this.anyHandlers.add(handler);
    return { dispose: () => void this.anyHandlers.delete(handler) };
  }

  /** `run/start`: answered at once with the ids; the run's notifications follow. */
  async startRun(params: RunStartParams, options?: RequestOptions): Promise<RunStartResult> {
    const { runId, sessionId } = await this.request('run/start', params, options);
    return { runId, sessionId };
  }

  /**
   * Start a run and collect its `run/started`, `run/delta` and `run/event` notifications
   * until its `run/completed`. Listens before sending `run/start`, so nothing is missed.
   * Resolves for every final status (check `completed.status`); rejects if the connection
   * closes or `timeoutMs` passes first.
   */
  async runToCompletion(params: RunStartParams, options: CollectRunOptions = {}): Promise<CollectedRun> {
    const buffered: Array<[RunMethod, RunNotification]> = [];
    let feed: ((method: RunMethod, n: RunNotification) => void) | undefined;
    const subs = RUN_METHODS.map((m) =>
      this.onNotification(m, (n: RunNotification) => (feed ? feed(m, n) : buffered.push([m, n]))),
    );
    try {
      const ids = await this.startRun(params);
      return await this.collect(ids, options, (f) => {
        feed = f;
        for (const [m, n] of buffered.splice(0)) f(m, n);
      });
    } finally {
      for (const s of subs) s.dispose();
    }
  }

  /**
   * Collect the notifications of a run that was already started (with {@link startRun})
   * until its `run/completed`. Notifications that arrived before this call are missed;
   * prefer {@link runToCompletion}.
   */
  async collectRun(ids: RunStartResult, options: CollectRunOptions = {}): Promise<CollectedRun> {
    let subs: Disposable[] = [];
    try {
      return await this.collect(ids, options, (f) => {
        subs = RUN_METHODS.map((m) => this.onNotification(m, (n: RunNotification) => f(m, n)));
      });
    } finally {
      for (const s of subs) s.dispose();
    }
  }

  private collect(
    { runId, sessionId }: RunStartResult,
    options: CollectRunOptions,
    attach: (feed: (method: RunMethod, n: RunNotification) => void) => void,
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
        this.request('run/interrupt', { runId }).catch(() => {});
      };
      const cleanup = (): void => {
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener('abort', interrupt);
        closeSub.dispose();
      };
      const closeSub = this.onClosed(() => {
        cleanup();
        reject(HermesStdioError.client('connection_closed', `run ${runId}: ${this.closedMessage()}`, 'run/start'));
      });
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          cleanup();
          interrupt();
          reject(HermesStdioError.client('run_timeout', `run ${runId} did not complete within ${options.timeoutMs} ms`, 'run/start'));
        }, options.timeoutMs);
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
            options.onDelta?.(n as RunDeltaNotification);
            break;
          case 'run/event':
            events.push(n as RunEventNotification);
            options.onEvent?.(n as RunEventNotification);
            break;
          case 'approval/requested': {
            const request = n as ApprovalRequestedNotification;
            approvals.push(request);
            if (options.onApproval) this.answerApproval(request, options.onApproval);
            break;
          }
          case 'approval/resolved':
            approvals.push(n as ApprovalResolvedNotification);
            break;
          case 'clarify/requested': {
            const question = n as ClarifyRequestedNotification;
            questions.push(question);
            if (options.onClarify) this.answerClarify(question, options.onClarify);
            break;
          }
          case 'clarify/resolved':
            questions.push(n as ClarifyResolvedNotification);
            break;
          case 'compression/requested': {
            const request = n as CompressionRequestedNotification;
            compressions.push(request);
            if (options.onCompression) this.answerCompression(request, options.onCompression);
            break;
          }
          case 'compression/resolved':
            compressions.push(n as CompressionResolvedNotification);
            break;
          case 'sudo/requested': {
            const request = n as SudoRequestedNotification;
            sudoRequests.push(request);
            const { sudoId } = request;
            if (options.onSudo) {
              this.answerOrNull(request, options.onSudo, (password) =>
                this.request('sudo/respond', { runId, sudoId, password }),
              );
            }
            break;
          }
          case 'sudo/resolved':
            sudoRequests.push(n as SudoResolvedNotification);
            break;
          case 'secret/requested': {
            const request = n as SecretRequestedNotification;
            secretRequests.push(request);
            const { secretId } = request;
            if (options.onSecret) {
              this.answerOrNull(request, options.onSecret, (value) =>
                this.request('secret/respond', { runId, secretId, value }),
              );
            }
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

  private answerApproval(
    request: ApprovalRequestedNotification,
    decide: NonNullable<CollectRunOptions['onApproval']>,
  ): void {
    const { runId, approvalId } = request;
    // A callback that throws denies: nothing dangerous runs on an error.
    void Promise.resolve()
      .then(() => decide(request))
      .catch((err: unknown): ApprovalAnswer => ({ decision: 'deny', reason: `host error: ${String(err)}` }))
      .then((answer) => this.request('approval/respond', { runId, approvalId, ...answer }))
      .catch(() => {
        /* not pending any more (timed out, run ended): approval/resolved already says so */
      });
  }

  private answerClarify(
    question: ClarifyRequestedNotification,
    answer: NonNullable<CollectRunOptions['onClarify']>,
  ): void {
    const { runId, clarifyId } = question;
    void Promise.resolve()
      .then(() => answer(question))
      .then((text) => this.request('clarify/respond', { runId, clarifyId, answer: text }))
      .catch(() => {
        /* a callback error leaves the question to time out; clarify/resolved will say so */
      });
  }

  private answerCompression(
    request: CompressionRequestedNotification,
    compress: NonNullable<CollectRunOptions['onCompression']>,
  ): void {
    const { runId, compressionId } = request;
    void Promise.resolve()
      .then(() => compress(request))
      .catch((err: unknown): CompressionAnswer => ({ error: `host error: ${String(err)}` }))
      .then((answer) => this.request('compression/respond', { runId, compressionId, ...answer }))
      .catch(() => {
        /* not pending any more (timed out, run ended): compression/resolved already says so */
      });
  }

  /** Sends what `give` returns, or null (decline, skip) when it throws. */
  private answerOrNull<R>(
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

  /**
   * Orderly stop: `shutdown` request, `exit` notification, then wait (at most
   * `timeoutMs`, default 10 s) for the process to exit. On timeout the process is
   * killed and `shutdown_timeout` is thrown. Resolves with the exit status (0 expected).
   */
  async shutdown(options: { timeoutMs?: number } = {}): Promise<ProcessExit> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const deadline = Date.now() + timeoutMs;
    if (!this.closed) {
      await withTimeout(this.request('shutdown'), timeoutMs, () =>
        HermesStdioError.client('shutdown_timeout', `no shutdown response within ${timeoutMs} ms`, 'shutdown'),
      ).catch(async (err: unknown) => {
        this.kill('SIGKILL');
        await this.exited;
        throw err;
      });
      await this.notify('exit', {}).catch(() => {});
    }
    const remaining = Math.max(0, deadline - Date.now());
    const exit = await withTimeout(this.exited, remaining, () => undefined).catch(() => undefined);
    if (exit) {
      await this.whenClosed; // at most ~1 s after exit
      return exit;
    }
    this.kill('SIGKILL');
    await this.exited;
    await this.whenClosed;
    throw HermesStdioError.client('shutdown_timeout', `process did not exit within ${timeoutMs} ms; killed`, 'exit');
  }

  /** Kill the process without the shutdown handshake. */
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.exitInfo === undefined) this.process.kill(signal);
  }

  /** Kill (if needed) and release everything; safe to call more than once. */
  async dispose(): Promise<void> {
    this.kill('SIGKILL');
    await this.exited;
    await this.whenClosed;
  }

  private readonly closeListeners = new Set<() => void>();

  private onClosed(listener: () => void): Disposable {
    if (this.closed) {
      queueMicrotask(listener);
      return { dispose: () => {} };
    }
    this.closeListeners.add(listener);
    return { dispose: () => void this.closeListeners.delete(listener) };
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    this.resolveClosed();
    // Rejects pending requests with PendingResponseRejected (-32097).
    queueMicrotask(() => this.connection.dispose());
    for (const l of [...this.closeListeners]) l();
    this.closeListeners.clear();
  }

  private closedMessage(): string {
    const exit = this.exitInfo;
    let msg = exit
      ? `hermes-stdio exited (code ${exit.code ?? 'null'}, signal ${exit.signal ?? 'null'})`
      : 'connection to hermes-stdio closed';
    const tail = this.stderrTail.trim().split('\n').slice(-5).join('\n');
    if (tail) msg += `; stderr tail:\n${tail}`;
    return msg;
  }
}

function withTimeout<T, E>(p: Promise<T>, ms: number, onTimeout: () => E): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
