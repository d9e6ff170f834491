// (3) Failure handling: unframed output, concurrent shutdowns, throwing host callbacks, the
// end of the connection. The real supervisor where it can show the problem; a tiny fake
// server (support/fake-server.mjs) where a timing race has to be forced.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';

import { HermesStdioClient, HermesStdioError } from '../dist/index.js';
import { STDERR_TAIL_BYTES, StderrTail } from '../dist/stderr.js';
import { hermesBin, hermesPython, makeHome, offlineEnv, pkgRoot, run, startScriptedLLM, typecheck } from './support/helpers.mjs';

const support = path.join(pkgRoot, 'test/support');
const haveBin = existsSync(hermesBin);
const python = hermesPython();
const noLLM = !python && 'no python for the scripted LLM';

/** A promise with its resolve, for "wait until this callback ran" (bounded by the test timeout). */
function signal() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

/** onLog that records what the client reported (instead of printing it). */
function logSink() {
  const entries = [];
  const waiters = [];
  return {
    entries,
    onLog: (level, message, error) => {
      entries.push({ level, message, error });
      for (const w of waiters.splice(0)) w();
    },
    /** Resolves once an entry matching `pred` was logged. */
    async until(pred) {
      while (!entries.some(pred)) await new Promise((r) => waiters.push(r));
    },
  };
}

// Everything started here is stopped at the end even if a test hangs (and times out).
const started = [];
after(async () => {
  await Promise.all(started.map((s) => (s.dispose ?? s.stop).call(s)));
});

async function spawn(opts) {
  const client = await HermesStdioClient.spawn(opts);
  started.push(client);
  return client;
}

async function llmServer(...args) {
  const llm = await startScriptedLLM(python, ...args);
  started.push(llm);
  return llm;
}

function fake(mode) {
  return spawn({ command: process.execPath, args: [path.join(support, 'fake-server.mjs'), mode] });
}

// Timeouts per test, so a hang fails that test alone.
const FAKE = { timeout: 10_000 };
const REAL = { timeout: 60_000 };
const RUN = { skip: noLLM, timeout: 90_000 };

describe('fake server races', () => {
  test('every message read before stdout ended is dispatched before the client counts as closed', FAKE, async () => {
    const client = await fake('burst-exit');
    try {
      const seen = [];
      client.onAnyNotification((method, params) => seen.push(params.i));
      assert.deepEqual(await client.requestUntyped('x', {}), { ok: true });
      await client.whenClosed;
      assert.equal(seen.length, 200, `dispatched ${seen.length} of 200 notifications`);
      assert.deepEqual(seen, seen.map((_, i) => i + 1));
      assert.deepEqual(await client.exited, { code: 0, signal: null });
    } finally {
      await client.dispose();
    }
  });

  test('runToCompletion timeoutMs covers the wait for the run/start answer, and cancels it', FAKE, async () => {
    const client = await fake('hold-start');
    try {
      const t0 = Date.now();
      await assert.rejects(client.runToCompletion({ message: 'hi' }, { timeoutMs: 300 }), (err) => {
        assert.ok(err instanceof HermesStdioError);
        assert.equal(err.data.type, 'run_timeout');
        assert.match(err.message, /run\/start was not answered within 300 ms/);
        // The fake answers $/cancelRequest only: so run/start was cancelled.
        assert.equal(err.cause?.data?.type, 'request_cancelled');
        return true;
      });
      assert.ok(Date.now() - t0 < 5_000, `took ${Date.now() - t0} ms`);
    } finally {
      await client.dispose();
    }
  });

  test('runToCompletion signal aborts a pending run/start', FAKE, async () => {
    const client = await fake('hold-start');
    try {
      const ac = new AbortController();
      const pending = client.runToCompletion({ message: 'hi' }, { signal: ac.signal });
      ac.abort();
      await assert.rejects(pending, { code: -32800, data: { type: 'request_cancelled' } });
    } finally {
      await client.dispose();
    }
  });

  test("collectRun's run_timeout and connection_closed name collectRun, not run/start", FAKE, async () => {
    const ids = { runId: 'run_elsewhere', sessionId: 'sess_elsewhere' };
    const held = await fake('hold-start'); // answers run/interrupt; sends no notifications
    try {
      await assert.rejects(held.collectRun(ids, { timeoutMs: 200 }), (err) => {
        assert.equal(err.data.type, 'run_timeout');
        assert.equal(err.method, 'collectRun');
        return true;
      });
    } finally {
      await held.dispose();
    }
    const exiting = await fake('burst-exit'); // exits after answering its first request
    try {
      const pending = exiting.collectRun(ids);
      await exiting.requestUntyped('x', {});
      await assert.rejects(pending, (err) => {
        assert.equal(err.data.type, 'connection_closed');
        assert.equal(err.method, 'collectRun');
        assert.match(err.message, /^run run_elsewhere \(/);
        return true;
      });
    } finally {
      await exiting.dispose();
    }
  });

  test('connection_closed names the exit code and stderr even when stdout ends before the exit', FAKE, async () => {
    const client = await fake('exit-late');
    try {
      await assert.rejects(client.initialize({ name: 'node-test' }), (err) => {
        assert.equal(err.data.type, 'connection_closed');
        assert.match(err.message, /code 3/);
        assert.match(err.message, /fatal: config broken/);
        return true;
      });
    } finally {
      await client.dispose();
    }
  });
});

describe('stderr tail', () => {
  /** Feeds `parts` (strings or Buffers) through a pipe-like stream; resolves the tail and what onText saw. */
  async function tailOf(parts, maxBytes) {
    const stream = new PassThrough();
    const seen = [];
    const tail = new StderrTail(stream, (t) => seen.push(t), maxBytes);
    for (const p of parts) stream.write(p);
    stream.end();
    await tail.done;
    return { text: tail.text, seen: seen.join('') };
  }

  test('keeps the last 64 KiB of UTF-8, counted in bytes, not characters', async () => {
    // 100 KiB of 3-byte characters (and a few 4-byte ones), in pipe-sized pieces that
    // split characters between chunks.
    const written = ('€'.repeat(1000) + '😀 line\n').repeat(34);
    const bytes = Buffer.from(written);
    const parts = [];
    for (let i = 0; i < bytes.length; i += 4093) parts.push(bytes.subarray(i, i + 4093));
    const { text, seen } = await tailOf(parts);
    assert.equal(seen, written, 'onText gets every character whole');
    const size = Buffer.byteLength(text);
    assert.ok(size <= STDERR_TAIL_BYTES, `kept ${size} bytes`);
    assert.ok(size > STDERR_TAIL_BYTES - 4, `kept only ${size} bytes`);
    assert.ok(written.endsWith(text), 'the tail is the end of what was written');
    assert.ok(!text.includes('\uFFFD'));
  });

  test('a chunk larger than the bound is cut at a character boundary', async () => {
    const { text } = await tailOf(['ab😀😀😀€'], 10); // 2 + 12 + 3 bytes
    assert.equal(text, '😀€'); // 7 bytes: one more 😀 would be 11
    assert.equal((await tailOf(['😀😀😀😀'], 8)).text, '😀😀');
    // Whole chunks go first, then the front of the oldest one left; half an é is never kept.
    assert.equal((await tailOf(['x', 'é'.repeat(8), 'y'], 6)).text, 'ééy');
  });
});

describe('real supervisor failure handling', { skip: !haveBin && `no ${hermesBin}` }, () => {
  let root;
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'hermes-node-robust-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('a banner on stdout is a protocol_error: pending requests reject, the child is stopped', REAL, async () => {
    const log = logSink();
    const client = await spawn({
      command: 'sh',
      args: [path.join(support, 'banner-wrapper.sh'), hermesBin],
      env: offlineEnv(path.join(root, 'banner')),
      onLog: log.onLog,
    });
    try {
      await assert.rejects(client.initialize({ name: 'node-test' }), (err) => {
        assert.ok(err instanceof HermesStdioError);
        assert.equal(err.data.type, 'protocol_error');
        assert.equal(err.method, 'initialize');
        assert.match(err.message, /hermes-stdio wrapper v1 starting/);
        return true;
      });
      assert.equal(client.isClosed, true);
      await assert.rejects(client.request('supervisor/status'), { data: { type: 'protocol_error' } });
      assert.ok(log.entries.some((e) => e.level === 'error' && /wrapper v1 starting/.test(e.message)));
      await client.exited; // killed by the client, not left running
    } finally {
      await client.dispose();
    }
  });

  test('concurrent and repeated shutdown() calls end the supervisor with exit code 0', REAL, async () => {
    const client = await spawn({ command: hermesBin, env: offlineEnv(path.join(root, 'twice')) });
    try {
      await client.initialize(); // clientInfo is optional
      const both = await Promise.all([client.shutdown({ timeoutMs: 15_000 }), client.shutdown({ timeoutMs: 15_000 })]);
      assert.deepEqual(both, [
        { code: 0, signal: null },
        { code: 0, signal: null },
      ]);
      assert.deepEqual(await client.shutdown(), { code: 0, signal: null });
    } finally {
      await client.dispose();
    }
  });

  test('an onStderr callback that throws is reported, not an uncaught exception', REAL, async () => {
    const log = logSink();
    const client = await spawn({
      command: hermesBin,
      env: offlineEnv(path.join(root, 'stderr')),
      onStderr: () => {
        throw new Error('log panel disposed');
      },
      onLog: log.onLog,
    });
    try {
      await client.initialize({ name: 'node-test' });
      // The supervisor logs the reason for its exit on stderr.
      assert.deepEqual(await client.shutdown({ timeoutMs: 15_000 }), { code: 0, signal: null });
      await log.until((e) => e.message === 'onStderr threw');
      assert.equal(log.entries.find((e) => e.message === 'onStderr threw').error.message, 'log panel disposed');
    } finally {
      await client.dispose();
    }
  });

  test('a throwing notification handler or onDelta does not starve the others', RUN, async () => {
    const reply = 'Hello from the scripted model';
    const llm = await llmServer(reply);
    const log = logSink();
    let client;
    try {
      const home = await makeHome(python, path.join(root, 'throwing'), llm.port);
      client = await spawn({ command: hermesBin, env: offlineEnv(home), onLog: log.onLog });
      await client.initialize({ name: 'node-test' });
      // Registered first, so they run before runToCompletion's own subscriptions.
      client.onNotification('run/delta', () => {
        throw new Error('renderer gone');
      });
      client.onNotification('run/completed', () => {
        throw new Error('status bar not ready');
      });
      const completed = [];
      client.onNotification('run/completed', (n) => completed.push(n.runId));
      const run = await client.runToCompletion(
        { message: 'hi' },
        {
          timeoutMs: 60_000,
          onDelta: () => {
            throw new Error('onDelta bug');
          },
        },
      );
      assert.equal(run.completed.status, 'complete', client.stderrTail);
      assert.equal(run.text, reply);
      assert.deepEqual(completed, [run.runId]);
      const errors = log.entries.filter((e) => e.level === 'error').map((e) => e.error?.message);
      for (const m of ['renderer gone', 'status bar not ready', 'onDelta bug']) assert.ok(errors.includes(m), `${m} not reported`);
      assert.deepEqual(await client.shutdown({ timeoutMs: 30_000 }), { code: 0, signal: null });
    } finally {
      await client?.dispose();
      await llm.stop();
    }
  });

  test('an onClarify that throws answers the question with a bracketed note', RUN, async () => {
    const llm = await llmServer('ok', [
      { tool: 'clarify', arguments: { question: 'Which one?', choices: ['red', 'blue'] } },
      { text: 'done' },
    ]);
    let client;
    try {
      const home = await makeHome(python, path.join(root, 'clarify'), llm.port);
      client = await spawn({ command: hermesBin, env: offlineEnv(home), onLog: () => {} });
      await client.initialize({ name: 'node-test' });
      const run = await client.runToCompletion(
        { message: 'ask me' },
        {
          timeoutMs: 60_000, // hermes would wait an hour for an unanswered question
          onClarify: () => {
            throw new Error('dialog could not open');
          },
        },
      );
      assert.equal(run.completed.status, 'complete', client.stderrTail);
      assert.deepEqual(run.questions.map((q) => q.outcome ?? 'requested'), ['requested', 'answered']);
      assert.equal(run.questions[1].answer, '[the host could not ask the user: dialog could not open]');
      assert.deepEqual(await client.shutdown({ timeoutMs: 30_000 }), { code: 0, signal: null });
    } finally {
      await client?.dispose();
      await llm.stop();
    }
  });

  test('an onClarify answer the server refuses (invalid_params) is reported and replaced by the bracketed note', RUN, async () => {
    const llm = await llmServer('ok', [
      { tool: 'clarify', arguments: { question: 'Which one?' } },
      { text: 'done' },
    ]);
    const log = logSink();
    let client;
    try {
      const home = await makeHome(python, path.join(root, 'clarify-refused'), llm.port);
      client = await spawn({ command: hermesBin, env: offlineEnv(home), onLog: log.onLog });
      await client.initialize({ name: 'node-test' });
      const run = await client.runToCompletion(
        { message: 'ask me' },
        { timeoutMs: 30_000, onClarify: () => 42 }, // not a string: clarify/respond refuses it
      );
      assert.equal(run.completed.status, 'complete', client.stderrTail);
      assert.deepEqual(run.questions.map((q) => q.outcome ?? 'requested'), ['requested', 'answered']);
      assert.match(run.questions[1].answer, /^\[the host could not ask the user: .+\]$/);
      const refused = log.entries.find((e) => e.message === 'the server refused what onClarify returned');
      assert.equal(refused?.error?.data?.type, 'invalid_params');
      assert.deepEqual(await client.shutdown({ timeoutMs: 30_000 }), { code: 0, signal: null });
    } finally {
      await client?.dispose();
      await llm.stop();
    }
  });

  test('an onApproval that throws denies, and the command never runs', RUN, async () => {
    const kept = path.join(root, 'approval-throws', 'kept');
    await mkdir(kept, { recursive: true });
    const llm = await llmServer('ok', [
      { tool: 'terminal', arguments: { command: `rm -rf ${kept}` } },
      { text: 'left it' },
    ]);
    let client;
    try {
      const home = await makeHome(python, path.join(root, 'approval-throws-home'), llm.port);
      client = await spawn({ command: hermesBin, env: offlineEnv(home), onLog: () => {} });
      await client.initialize({ name: 'node-test' });
      const run = await client.runToCompletion(
        { message: 'clean up' },
        {
          timeoutMs: 60_000,
          onApproval: () => {
            throw new Error('approval dialog crashed');
          },
        },
      );
      assert.equal(run.completed.status, 'complete', client.stderrTail);
      assert.deepEqual(run.approvals.map((a) => a.outcome ?? 'requested'), ['requested', 'denied']);
      assert.ok(existsSync(kept), 'a command the host could not decide on never runs');
      assert.deepEqual(await client.shutdown({ timeoutMs: 30_000 }), { code: 0, signal: null });
    } finally {
      await client?.dispose();
      await llm.stop();
    }
  });

  test('closing stdin with a run in flight still delivers its run/completed', RUN, async () => {
    // The run waits on a question nobody answers, so it is surely in flight at the EOF.
    const llm = await llmServer('ok', [{ tool: 'clarify', arguments: { question: 'Which one?' } }]);
    let client;
    try {
      const home = await makeHome(python, path.join(root, 'eof'), llm.port);
      client = await spawn({ command: hermesBin, env: offlineEnv(home) });
      await client.initialize({ name: 'node-test' });
      const asked = signal();
      client.onNotification('clarify/requested', asked.resolve);
      const pending = client.runToCompletion({ message: 'ask me' }, { timeoutMs: 60_000 });
      await asked.promise;
      client.process.stdin.end(); // the host is gone: the server stops its workers and exits
      const run = await pending;
      assert.equal(run.completed.status, 'error');
      assert.equal(run.completed.error?.type, 'worker_stopped');
      assert.deepEqual(run.questions.map((q) => q.outcome ?? 'requested'), ['requested', 'cancelled']);
      await client.whenClosed;
      assert.deepEqual(await client.exited, { code: 1, signal: null });
    } finally {
      await client?.dispose();
      await llm.stop();
    }
  });
});

test('CompressionAnswer is exported and initialize() takes no argument (tsc)', { timeout: 60_000 }, async () => {
  const index = path.join(pkgRoot, 'src/index.js');
  const source = [
    `import { HermesStdioClient, type CompressionAnswer, type CollectRunOptions, type LogLevel } from ${JSON.stringify(index)};`,
    'export async function usage(c: HermesStdioClient): Promise<void> {',
    '  await c.initialize();',
    '  await c.initialize(null);',
    "  const opts: CollectRunOptions = { onCompression: (): CompressionAnswer => ({ messages: [] }) };",
    "  const level: LogLevel = 'warn';",
    '  void opts; void level;',
    '}',
  ].join('\n') + '\n';
  const res = await typecheck(source);
  assert.equal(res.code, 0, `tsc failed:\n${res.stdout}${res.stderr}`);
});
