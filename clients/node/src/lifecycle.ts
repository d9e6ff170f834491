/**
 * The supervisor's lifecycle around the connection: starting the process (`spawn_failed`
 * if it cannot), the `initialize` handshake (`unsupported_protocol` on a version mismatch),
 * and the orderly stop, which kills the process only if it neither answers nor exits in time.
 */

import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';

import type { SupervisorConnection } from './connection.js';
import { HermesStdioError } from './errors.js';
import { PROTOCOL_VERSION, type ClientInfo, type InitializeParams, type InitializeResult } from './generated/protocol.js';
import { withTimeout } from './timeout.js';
import type { ProcessExit, SpawnOptions } from './types.js';

/** Start the child with piped stdin/stdout; resolves once it has spawned. */
export async function spawnChild(opts: SpawnOptions): Promise<ChildProcess> {
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
  return child;
}

/** `initialize` with this client's protocol version, then `initialized`. */
export async function initialize(
  conn: SupervisorConnection,
  clientInfo: ClientInfo | null | undefined,
  extra: Pick<InitializeParams, 'capabilities' | 'options'>,
): Promise<InitializeResult> {
  const result = await conn.request('initialize', {
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
  await conn.notify('initialized', {});
  return result;
}

/**
 * `shutdown` request, `exit` notification, then wait (at most `timeoutMs` in all) for the
 * process to exit and the connection to drain. Not idempotent by itself: the client
 * shares one call's promise.
 */
export async function shutdown(conn: SupervisorConnection, timeoutMs: number): Promise<ProcessExit> {
  const deadline = Date.now() + timeoutMs;
  if (!conn.isClosed) {
    let timedOut = false;
    try {
      await withTimeout(conn.request('shutdown'), timeoutMs, () => {
        timedOut = true;
        return HermesStdioError.client('shutdown_timeout', `no shutdown response within ${timeoutMs} ms`, 'shutdown');
      });
    } catch (err) {
      // Only an unanswered shutdown means a hung server. Any answer (`shutting_down`: it
      // is stopping already) or a closed connection still ends in an exit, awaited below.
      if (timedOut) {
        conn.kill('SIGKILL');
        await conn.exited;
        throw err;
      }
    }
    await conn.notify('exit', {}).catch(() => {});
  }
  const remaining = Math.max(0, deadline - Date.now());
  const exit = await withTimeout(conn.exited, remaining, () => undefined).catch(() => undefined);
  if (exit) {
    await conn.whenClosed; // at most ~1 s after exit
    return exit;
  }
  conn.kill('SIGKILL');
  await conn.exited;
  await conn.whenClosed;
  throw HermesStdioError.client('shutdown_timeout', `process did not exit within ${timeoutMs} ms; killed`, 'exit');
}
