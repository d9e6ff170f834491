/**
 * The JSON-RPC connection to a spawned hermes-stdio child (internal; the public face is
 * `HermesStdioClient`). Guarantees:
 * - closed means drained: `whenClosed` resolves once the child's stdout ended and every
 *   message read from it was dispatched (or the process is gone, or its output broke the
 *   protocol); closing stdin only stops new sends;
 * - unframed output is fatal: pending and later requests reject with `protocol_error`, and
 *   the child is stopped;
 * - every request/notify failure is a HermesStdioError; a closed connection's error names
 *   the exit status and stderr tail;
 * - any number of subscribers per notification, and one that throws does not starve the rest.
 */

import type { ChildProcess } from 'node:child_process';
import {
  CancellationTokenSource,
  createMessageConnection,
  StreamMessageWriter,
  type Message,
  type MessageConnection,
} from 'vscode-jsonrpc/node';

import { HermesStdioError } from './errors.js';
import { FramedMessageReader } from './framing.js';
import type { HostNotifications, HostRequests, ServerNotifications } from './generated/protocol.js';
import { Reporter } from './log.js';
import { StderrTail } from './stderr.js';
import { withTimeout } from './timeout.js';
import type { Disposable, ParamsArg, ProcessExit, RequestOptions, SpawnOptions } from './types.js';

type AnyHandler = (params: unknown) => void;

/** How long a closed-connection error waits for the exit status and last stderr. */
const EXIT_REASON_WAIT_MS = 1_000;
/** Queued behind every message read once stdout ends; dispatching it means all were. */
const EOF_SENTINEL = '$/hermes-client/stdoutEnded';

export class SupervisorConnection {
  readonly process: ChildProcess;
  readonly connection: MessageConnection;
  /** Resolves once the child process has exited (never rejects). */
  readonly exited: Promise<ProcessExit>;
  readonly report: Reporter;

  private readonly handlers = new Map<string, Set<AnyHandler>>();
  private readonly anyHandlers = new Set<(method: string, params: unknown) => void>();
  private readonly closeListeners = new Set<() => void>();
  private readonly stderr: StderrTail;
  private exitInfo: ProcessExit | undefined;
  private closed = false;
  private stdoutEnded = false;
  /** Set when the child's output broke the protocol; every later failure reports it. */
  private fatalError: HermesStdioError | undefined;
  // Declared before whenClosed: a field declared after it would reset it to undefined.
  private resolveClosed!: () => void;
  /**
   * Resolves once the connection is closed: stdout ended and every message read from it
   * was dispatched (or the process is gone, or its output broke the protocol).
   */
  readonly whenClosed: Promise<void> = new Promise<void>((resolve) => (this.resolveClosed = resolve));

  constructor(child: ChildProcess, opts: SpawnOptions) {
    this.process = child;
    this.report = new Reporter(opts.onLog);
    if (!child.stdin || !child.stdout) throw new Error('child process has no stdio pipes');
    this.exited = new Promise<ProcessExit>((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
    });
    // Writing to a dead child raises EPIPE on stdin; the connection reports it instead.
    child.stdin.on('error', () => {});
    // A host's log sink with a bug must not become an uncaught exception in a stream event.
    this.stderr = new StderrTail(child.stderr, (text) =>
      this.report.guard(() => opts.onStderr?.(text), 'onStderr threw'),
    );

    const reader = new FramedMessageReader(child.stdout, (callback, truncated) => {
      this.stdoutEnded = true;
      if (truncated) this.report.log('warn', `hermes-stdio's stdout ended inside a message (${truncated} bytes dropped)`);
      // Queued behind every message already read: the client counts as closed only once
      // all of them reached their handlers (connection.dispose() would drop the rest).
      callback({ jsonrpc: '2.0', method: EOF_SENTINEL } as Message);
    });
    // Unframed output (a wrapper's banner, a stray print) is fatal: nothing after it can be
    // trusted, and pending requests would otherwise wait forever.
    reader.onError((err) =>
      this.fail(HermesStdioError.client('protocol_error', err.message, undefined, err)),
    );
    this.connection = createMessageConnection(reader, new StreamMessageWriter(child.stdin), this.report.jsonrpcLogger(), {
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
        this.report.guard(() => h(params), `a handler for ${method} threw`);
      }
      for (const h of this.anyHandlers) this.report.guard(() => h(method, params), `a handler for ${method} threw`);
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

  get stderrTail(): string {
    return this.stderr.text;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async request<M extends keyof HostRequests>(
    method: M,
    ...args: ParamsArg<HostRequests[M]['params']>
  ): Promise<HostRequests[M]['result']> {
    const [params, options] = args;
    return (await this.requestUntyped(method, params ?? {}, options)) as HostRequests[M]['result'];
  }

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

  async notify<N extends keyof HostNotifications>(method: N, params: HostNotifications[N]): Promise<void> {
    try {
      await this.connection.sendNotification(method, params);
    } catch (err) {
      const e = HermesStdioError.from(err, method);
      if (e.type === 'connection_closed') throw await this.closedError(method, e.message, err);
      throw e;
    }
  }

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

  onAnyNotification(handler: (method: string, params: unknown) => void): Disposable {
    this.anyHandlers.add(handler);
    return { dispose: () => void this.anyHandlers.delete(handler) };
  }

  /** Called once when the connection closes (on a microtask if it already has). */
  onClosed(listener: () => void): Disposable {
    if (this.closed) {
      queueMicrotask(listener);
      return { dispose: () => {} };
    }
    this.closeListeners.add(listener);
    return { dispose: () => void this.closeListeners.delete(listener) };
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.exitInfo === undefined) this.process.kill(signal);
  }

  /**
   * The error for a request that met a closed connection: `protocol_error` if the output
   * broke the protocol, else `connection_closed` naming the exit status and stderr tail.
   * The stdout end usually comes before the 'exit' event, so wait for it (briefly).
   */
  async closedError(method: string, prefix?: string, cause?: unknown): Promise<HermesStdioError> {
    if (this.fatalError) {
      const f = this.fatalError;
      return new HermesStdioError(f.code, f.message, f.data, method, { cause: cause ?? f });
    }
    await withTimeout(Promise.all([this.exited, this.stderr.done]), EXIT_REASON_WAIT_MS, () => undefined).catch(() => {});
    const message = prefix ? `${prefix} (${this.closedMessage()})` : this.closedMessage();
    return HermesStdioError.client('connection_closed', message, method, cause);
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
    this.report.log('error', error.message);
    this.kill('SIGTERM'); // lets it stop its workers
    const escalate = setTimeout(() => this.kill('SIGKILL'), 5_000).unref();
    void this.exited.then(() => clearTimeout(escalate));
    this.markClosed();
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
