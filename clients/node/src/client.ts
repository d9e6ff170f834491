import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import {
  CancellationTokenSource,
  createMessageConnection,
  StreamMessageWriter,
  type Logger,
  type Message,
  type MessageConnection,
} from 'vscode-jsonrpc/node';

import { HermesStdioError } from './errors.js';
import { FramedMessageReader } from './framing.js';
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
  /** Called with each stderr chunk when `stderr` is `'pipe'`. A throw is reported to `onLog`. */
  onStderr?: (text: string) => void;
  /**
   * Where the client reports what has no caller to reject: a notification handler or an
   * `onDelta`/`onEvent`/`onStderr`/`onClarify`… callback that threw, a fatal `protocol_error`,
   * and vscode-jsonrpc's own log lines. Default: `console.error` for `error` and `warn`.
   */
  onLog?: (level: LogLevel, message: string, error?: unknown) => void;
}

export type LogLevel = 'error' | 'warn' | 'info' | 'log';

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
   * Answers the run's `approval/requested` (a dangerous command waits for it); the answer is
   * sent with `approval/respond`. Without it, answer from your own `onNotification` handler:
   * an unanswered request times out (hermes' `approvals.timeout`) and the command is blocked.
   */
  onApproval?: (request: ApprovalRequestedNotification) => ApprovalAnswer | Promise<ApprovalAnswer>;
  /**
   * Answers the agent's `clarify/requested` (sent with `clarify/respond`). Without it, answer
   * from your own `onNotification` handler; unanswered, the question times out. A callback
   * that throws answers `[the host could not ask the user: <error message>]`, so the agent
   * goes on at once instead of waiting out hermes' clarify timeout.
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
/** How long a closed-connection error waits for the exit status and last stderr. */
const EXIT_REASON_WAIT_MS = 1_000;
/** Queued behind every message read once stdout ends; dispatching it means all were. */
const EOF_SENTINEL = '$/hermes-client/stdoutEnded';

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
  private stdoutEnded = false;
  /** Set when the child's output broke the protocol; every later failure reports it. */
  private fatalError: HermesStdioError | undefined;
  private shutdownPromise: Promise<ProcessExit> | undefined;
  private readonly stderrDone: Promise<void>;
  private readonly onLog: SpawnOptions['onLog'];
  private resolveClosed!: () => void;
  /**
   * Resolves once the connection is closed: stdout ended and every message read from it
   * was dispatched (or the process is gone, or its output broke the protocol).
   */
  readonly whenClosed: Promise<void> = new Promise<void>((resolve) => (this.resolveClosed = resolve));

  private constructor(child: ChildProcess, opts: SpawnOptions) {
    this.process = child;
    this.onLog = opts.onLog;
    if (!child.stdin || !child.stdout) throw new Error('child process has no stdio pipes');
    this.exited = new Promise<ProcessExit>((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
    });
    // Writing to a dead child raises EPIPE on stdin; the connection reports it instead.
    child.stdin.on('error', () => {});
    const stderr = child.stderr;
    if (stderr) {
      stderr.setEncoding('utf8');
      stderr.on('data', (text: string) => {
        this.stderrChunks.push(text);
        this.stderrBytes += text.length;
        while (this.stderrBytes > STDERR_TAIL_BYTES && this.stderrChunks.length > 1) {
          this.stderrBytes -= this.stderrChunks.shift()!.length;
        }
        // A host's log sink with a bug must not become an uncaught exception in a stream event.
        this.guard(() => opts.onStderr?.(text), 'onStderr threw');
      });
    }
    this.stderrDone = stderr
      ? new Promise<void>((resolve) => {
          stderr.once('end', resolve);
          stderr.once('close', resolve);
        })
      : Promise.resolve();

    const reader = new FramedMessageReader(child.stdout, (callback, truncated) => {
      this.stdoutEnded = true;
      if (truncated) this.log('warn', `hermes-stdio's stdout ended inside a message (${truncated} bytes dropped)`);
      // Queued behind every message already read: the client counts as closed only once
      // all of them reached their handlers (connection.dispose() would drop the rest).
      callback({ jsonrpc: '2.0', method: EOF_SENTINEL } as Message);
    });
    // Unframed output (a wrapper's banner, a stray print) is fatal: nothing after it can be
    // trusted, and pending requests would otherwise wait forever.
    reader.onError((err) =>
      this.fail(HermesStdioError.client('protocol_error', err.message, undefined, err)),
    );
    const logger: Logger = {
      // A failed send is also the rejection of that send: no need to shout about it twice.
      error: (m) => this.log(/^Sending \w+ failed\.$/.test(m) ? 'info' : 'error', `vscode-jsonrpc: ${m}`),
      warn: (m) => this.log('warn', `vscode-jsonrpc: ${m}`),
      info: (m) => this.log('info', `vscode-jsonrpc: ${m}`),
      log: (m) => this.log('log', `vscode-jsonrpc: ${m}`),
    };
    this.connection = createMessageConnection(reader, new StreamMessageWriter(child.stdin), logger, {
      messageStrategy: {
        handleMessage: (message, next) => {
          if ((message as { method?: unknown }).method === EOF_SENTINEL) return this.markClosed();
          return next(message);
        },
      },
    });
    // One star handler dispatching to any number of typed subscribers
    // (vscode-jsonrpc keeps only one handler per method). Each is guarded: one that throws
    // must not starve the rest (runToCompletion's own subscription among them).
    this.connection.onNotification((method: string, params: unknown) => {
      for (const h of this.handlers.get(method) ?? []) {
        this.guard(() => h(params), `a handler for ${method} threw`);
      }
      for (const h of this.anyHandlers) this.guard(() => h(method, params), `a handler for ${method} threw`);
    });
    // Not connection.onClose: a writer close (stdin gone) only stops new sends; the server
    // may still answer and notify until its stdout ends (see the reader's end callback).
    this.connection.onError(() => {
      /* write errors reject the send that failed; read errors are handled on the reader */
    });
    // If a grandchild still holds stdout open after the exit, stop waiting for its end;
    // once stdout has ended the queue drains by itself, so that is capped only loosely.
    void this.exited.then(() => {
      setTimeout(() => this.stdoutEnded || this.markClosed(), 1_000).unref();
      setTimeout(() => this.markClosed(), 5_000).unref();
    });
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

  /** True once the connection closed (see {@link whenClosed}). */
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Open the session: `initialize` with this client's protocol version, then `initialized`.
   */
  async initialize(
    clientInfo?: ClientInfo | null,
    extra: Pick<InitializeParams, 'capabilities' | 'options'> = {},
  ): Promise<InitializeResult> {
    const result = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      // Optional in the schema (only for the server's logs): omitted when not given.
      ...(clientInfo !== undefined && { clientInfo }),
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
    if (this.closed) throw await this.closedError(method);
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
      if (e.type === 'connection_closed') throw await this.closedError(method, e.message, err);
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
      const e = HermesStdioError.from(err, method);
      if (e.type === 'connection_closed') throw await this.closedError(method, e.message, err);
      throw e;
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
   * closes or `timeoutMs` (counted from this call, `run/start` included) passes first.
   */
  async runToCompletion(params: RunStartParams, options: CollectRunOptions = {}): Promise<CollectedRun> {
    const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
    const buffered: Array<[RunMethod, RunNotification]> = [];
    let feed: ((method: RunMethod, n: RunNotification) => void) | undefined;
    const subs = RUN_METHODS.map((m) =>
      this.onNotification(m, (n: RunNotification) => (feed ? feed(m, n) : buffered.push([m, n]))),
    );
    try {
      const ids = await this.startRunBefore(params, options, deadline);
      return await this.collect(
        ids,
        options,
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
   * `run/start`, cancelled when `options.signal` aborts or `deadline` passes before it is
   * answered (a worker can take long to start). Cancelling also interrupts a run the worker
   * already accepted, so nothing is left running unobserved.
   */
  private async startRunBefore(
    params: RunStartParams,
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
      return await this.startRun(params, { signal: ac.signal });
    } catch (err) {
      if (timedOut) {
        throw HermesStdioError.client(
          'run_timeout',
          `run/start was not answered within ${options.timeoutMs} ms`,
          'run/start',
          err,
        );
      }
      throw err;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
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
        this.request('run/interrupt', { runId }).catch(() => {});
      };
      const cleanup = (): void => {
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener('abort', interrupt);
        closeSub.dispose();
      };
      const closeSub = this.onClosed(() => {
        cleanup();
        void this.closedError('run/start', `run ${runId}`).then(reject);
      });
      if (deadline !== undefined) {
        timer = setTimeout(() => {
          cleanup();
          interrupt();
          reject(HermesStdioError.client('run_timeout', `run ${runId} did not complete within ${options.timeoutMs} ms`, 'run/start'));
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
            this.guard(() => options.onDelta?.(n as RunDeltaNotification), 'onDelta threw');
            break;
          case 'run/event':
            events.push(n as RunEventNotification);
            this.guard(() => options.onEvent?.(n as RunEventNotification), 'onEvent threw');
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
      // Any text is a valid answer: say what went wrong rather than leave the agent waiting
      // out hermes' clarify timeout (an hour by default).
      .catch((err: unknown): string => {
        this.log('error', 'onClarify threw', err);
        return `[the host could not ask the user: ${err instanceof Error ? err.message : String(err)}]`;
      })
      .then((text) => this.request('clarify/respond', { runId, clarifyId, answer: text }))
      .catch(() => {
        /* not pending any more (timed out, run ended): clarify/resolved already says so */
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
   * Idempotent: later calls share the first call's outcome (and its `timeoutMs`).
   */
  shutdown(options: { timeoutMs?: number } = {}): Promise<ProcessExit> {
    // Two teardown paths calling it at once must not turn the second `shutdown` request's
    // `shutting_down` answer into a SIGKILL of a supervisor that is exiting cleanly.
    return (this.shutdownPromise ??= this.shutdownOnce(options.timeoutMs ?? 10_000));
  }

  private async shutdownOnce(timeoutMs: number): Promise<ProcessExit> {
    const deadline = Date.now() + timeoutMs;
    if (!this.closed) {
      let timedOut = false;
      try {
        await withTimeout(this.request('shutdown'), timeoutMs, () => {
          timedOut = true;
          return HermesStdioError.client('shutdown_timeout', `no shutdown response within ${timeoutMs} ms`, 'shutdown');
        });
      } catch (err) {
        // Only an unanswered shutdown means a hung server. Any answer (`shutting_down`: it
        // is stopping already) or a closed connection still ends in an exit, awaited below.
        if (timedOut) {
          this.kill('SIGKILL');
          await this.exited;
          throw err;
        }
      }
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

  /** A fatal protocol error: report it, stop the child and close the client. */
  private fail(error: HermesStdioError): void {
    if (this.closed) return;
    this.fatalError = error;
    this.log('error', error.message);
    this.kill('SIGTERM'); // lets it stop its workers
    const escalate = setTimeout(() => this.kill('SIGKILL'), 5_000).unref();
    void this.exited.then(() => clearTimeout(escalate));
    this.markClosed();
  }

  /**
   * The error for a request that met a closed connection: `protocol_error` if the output
   * broke the protocol, else `connection_closed` naming the exit status and stderr tail.
   * The stdout end usually comes before the 'exit' event, so wait for it (briefly).
   */
  private async closedError(method: string, prefix?: string, cause?: unknown): Promise<HermesStdioError> {
    if (this.fatalError) {
      const f = this.fatalError;
      return new HermesStdioError(f.code, f.message, f.data, method, { cause: cause ?? f });
    }
    await withTimeout(Promise.all([this.exited, this.stderrDone]), EXIT_REASON_WAIT_MS, () => undefined).catch(() => {});
    const message = prefix ? `${prefix} (${this.closedMessage()})` : this.closedMessage();
    return HermesStdioError.client('connection_closed', message, method, cause);
  }

  /** Runs a host callback; a throw is reported, never passed on to our caller (a stream event, the dispatcher). */
  private guard(fn: () => void, what: string): void {
    try {
      fn();
    } catch (err) {
      this.log('error', what, err);
    }
  }

  private log(level: LogLevel, message: string, error?: unknown): void {
    if (this.onLog) {
      try {
        this.onLog(level, message, error);
        return;
      } catch (err) {
        console.error('hermes-stdio-client: onLog threw', err);
      }
    }
    if (level === 'error' || level === 'warn') {
      console.error(`hermes-stdio-client: ${message}`, ...(error === undefined ? [] : [error]));
    }
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
