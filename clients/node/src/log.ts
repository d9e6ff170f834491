/**
 * Where the client reports what has no caller to reject. Guarantees: a host callback that
 * throws (through `guard`) and an `onLog` that throws never propagate into a stream event
 * or the dispatcher; without `onLog`, errors and warnings go to `console.error`.
 */

import type { Logger } from 'vscode-jsonrpc/node';

import type { LogLevel, SpawnOptions } from './types.js';

export class Reporter {
  private readonly onLog: SpawnOptions['onLog'];

  constructor(onLog: SpawnOptions['onLog']) {
    this.onLog = onLog;
  }

  /** Runs a host callback; a throw is reported, never passed on to our caller (a stream event, the dispatcher). */
  guard(fn: () => void, what: string): void {
    try {
      fn();
    } catch (err) {
      this.log('error', what, err);
    }
  }

  log(level: LogLevel, message: string, error?: unknown): void {
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

  /** vscode-jsonrpc's own log lines, routed through {@link log}. */
  jsonrpcLogger(): Logger {
    return {
      // A failed send is also the rejection of that send: no need to shout about it twice.
      error: (m) => this.log(/^Sending \w+ failed\.$/.test(m) ? 'info' : 'error', `vscode-jsonrpc: ${m}`),
      warn: (m) => this.log('warn', `vscode-jsonrpc: ${m}`),
      info: (m) => this.log('info', `vscode-jsonrpc: ${m}`),
      log: (m) => this.log('log', `vscode-jsonrpc: ${m}`),
    };
  }
}
