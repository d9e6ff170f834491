/**
 * The client's shared option and result types (no runtime code). Everything public is
 * re-exported from `index.ts`; `ParamsArg` is internal.
 */

import type { HermesStdioClient } from './client.js'; // for {@link}

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
export type ParamsArg<P> = {} extends P ? [params?: P, options?: RequestOptions] : [params: P, options?: RequestOptions];

export interface Disposable {
  dispose(): void;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}
