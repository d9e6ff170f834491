/**
 * Errors: every failure the client reports is a `HermesStdioError` carrying the wire's
 * code and `data.type` (or a client-only type from `CLIENT_ERROR_CODES`, never sent on
 * the wire), so hosts branch on stable strings, never on message text.
 */

import { ConnectionError, ResponseError } from 'vscode-jsonrpc/node';

import type { HermesStdioClient } from './client.js'; // for {@link}

/**
 * `error.data` as hermes-stdio sends it: every error object carries a stable
 * snake_case `type` (e.g. `invalid_params`, `unknown_session`, `worker_crashed`),
 * possibly with extra fields.
 */
export interface HermesErrorData {
  type: string;
  [key: string]: unknown;
}

/** Error `type`s produced by this client itself (never sent by the server). */
export type ClientErrorType =
  | 'connection_closed'
  | 'spawn_failed'
  | 'shutdown_timeout'
  | 'run_timeout'
  | 'unsupported_protocol'
  | 'request_aborted'
  | 'protocol_error';

/** vscode-jsonrpc's own codes: MessageWriteError, MessageReadError, PendingResponseRejected, ConnectionInactive. */
const TRANSPORT_CODES = new Set([-32099, -32098, -32097, -32096]);

/**
 * Client-side codes: the client's own outside the server's -32000..-32099 application
 * range, and three shared on purpose (vscode-jsonrpc's connection code, and two the
 * server also uses for the same meaning).
 */
export const CLIENT_ERROR_CODES: Readonly<Record<ClientErrorType, number>> = {
  connection_closed: -32097, // vscode-jsonrpc ErrorCodes.PendingResponseRejected
  spawn_failed: -32190,
  shutdown_timeout: -32191,
  run_timeout: -32192,
  unsupported_protocol: -32004, // same code the server uses
  request_aborted: -32800, // same code as the server's request_cancelled
  protocol_error: -32193, // the child's stdout is not LSP-framed JSON-RPC (e.g. a banner)
};

/**
 * Every failure surfaced by {@link HermesStdioClient}: JSON-RPC error responses from the
 * server (with the server's `code` and `data.type`), and client-side failures such as the
 * process going away (`data.type` is one of {@link ClientErrorType}).
 */
export class HermesStdioError extends Error {
  override readonly name = 'HermesStdioError';
  readonly code: number;
  readonly data: HermesErrorData;
  /**
   * The method of the request that failed, when there was one. A run's close or
   * `run_timeout` error names what the host called: `run/start` for `runToCompletion`,
   * `collectRun` for a run it gathers.
   */
  readonly method: string | undefined;

  constructor(code: number, message: string, data: HermesErrorData, method?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.data = data;
    this.method = method;
  }

  /** Shorthand for `data.type`. */
  get type(): string {
    return this.data.type;
  }

  static client(type: ClientErrorType, message: string, method?: string, cause?: unknown): HermesStdioError {
    return new HermesStdioError(CLIENT_ERROR_CODES[type], message, { type }, method, cause === undefined ? undefined : { cause });
  }

  /** Normalise anything thrown by vscode-jsonrpc into a HermesStdioError. */
  static from(err: unknown, method?: string): HermesStdioError {
    if (err instanceof HermesStdioError) return err;
    if (err instanceof ResponseError) {
      const raw: unknown = err.data;
      let data: HermesErrorData;
      if (raw !== null && typeof raw === 'object' && typeof (raw as { type?: unknown }).type === 'string') {
        data = raw as HermesErrorData;
      } else if (TRANSPORT_CODES.has(err.code)) {
        // Raised locally by vscode-jsonrpc (server errors always carry data.type).
        data = { type: 'connection_closed' };
      } else {
        data = raw === undefined ? { type: 'unknown' } : { type: 'unknown', value: raw };
      }
      return new HermesStdioError(err.code, err.message, data, method, { cause: err });
    }
    if (err instanceof ConnectionError) {
      return HermesStdioError.client('connection_closed', err.message, method, err);
    }
    const message = err instanceof Error ? err.message : String(err);
    return new HermesStdioError(-32603, message, { type: 'internal_error' }, method, { cause: err });
  }
}
