// (2) End to end against the REAL supervisor ($HERMES_STDIO_BIN, else the repo's .venv).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { HermesStdioClient, HermesStdioError, PROTOCOL_VERSION } from '../dist/index.js';
import { hermesBin, hermesPython, makeHome, offlineEnv, repoRoot, startScriptedLLM } from './support/helpers.mjs';

const haveBin = existsSync(hermesBin);
if (!haveBin) console.warn(`# ${hermesBin} not found: set HERMES_STDIO_BIN`);

// The suite's timeout bounds all its tests together; each test has a bound of its own.
describe('hermes-stdio supervisor', { skip: !haveBin && `no ${hermesBin}`, timeout: 600_000 }, () => {
  let root;
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'hermes-node-e2e-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('initialize, supervisor/status, invalid params, shutdown → exit 0', async () => {
    const home = path.join(root, 'empty-home');
    const client = await HermesStdioClient.spawn({ command: hermesBin, env: offlineEnv(home) });
    try {
      const init = await client.initialize({ name: 'node-test', version: '0.0.0' });
      assert.equal(init.protocolVersion, PROTOCOL_VERSION);
      assert.equal(init.serverInfo.name, 'hermes-stdio');
      assert.ok(init.capabilities.methods.includes('supervisor/status'));

      const status = await client.request('supervisor/status');
      assert.equal(status.pid, client.process.pid);
      assert.equal(status.protocolVersion, PROTOCOL_VERSION);
      assert.equal(status.hermesHome, home);
      assert.ok(Array.isArray(status.workers));
      // No such directory yet: no profile to name.
      assert.deepEqual(await client.request('profile/list'), { profiles: [] });

      await assert.rejects(client.requestUntyped('session/status', { sessionId: 42 }), (err) => {
        assert.ok(err instanceof HermesStdioError, `not a HermesStdioError: ${err}`);
        assert.equal(err.code, -32602);
        assert.equal(err.data.type, 'invalid_params');
        assert.equal(err.method, 'session/status');
        return true;
      });
      await assert.rejects(client.requestUntyped('no/such', {}), { code: -32601, data: { type: 'method_not_found', method: 'no/such' } });

      // The connection is still fine after errors.
      assert.equal((await client.request('supervisor/status')).pid, client.process.pid);

      const exit = await client.shutdown({ timeoutMs: 15_000 });
      assert.deepEqual(exit, { code: 0, signal: null });
      assert.equal(client.isClosed, true);
      await assert.rejects(client.request('supervisor/status'), { data: { type: 'connection_closed' } });
    } finally {
      await client.dispose();
    }
  });

  test('spawning a missing command fails with spawn_failed', async () => {
    await assert.rejects(HermesStdioClient.spawn({ command: path.join(root, 'does-not-exist') }), {
      name: 'HermesStdioError',
      data: { type: 'spawn_failed' },
    });
  });

  test('a process that dies rejects pending requests with connection_closed', async () => {
    const client = await HermesStdioClient.spawn({ command: hermesBin, env: offlineEnv(path.join(root, 'h2')) });
    await client.initialize({ name: 'node-test' });
    client.kill('SIGKILL');
    await assert.rejects(client.request('supervisor/status'), { data: { type: 'connection_closed' } });
    await client.dispose();
  });

  const python = hermesPython();
  test('a streamed run against the scripted LLM', { skip: !python && 'no python for the scripted LLM', timeout: 120_000 }, async () => {
    const reply = 'Hello from the scripted model';
    const llm = await startScriptedLLM(python, reply);
    let client;
    try {
      const home = await makeHome(python, path.join(root, 'run'), llm.port);
      client = await HermesStdioClient.spawn({ command: hermesBin, env: offlineEnv(home) });
      await client.initialize({ name: 'node-test' });

      const seen = [];
      const sub = client.onNotification('run/completed', (n) => seen.push(n.runId));
      const deltas = [];
      const run1 = await client.runToCompletion(
        { message: 'Say hello', source: 'node-test' },
        { onDelta: (d) => deltas.push(d.text), timeoutMs: 90_000 },
      );
      sub.dispose();
      assert.equal(run1.completed.status, 'complete', `${JSON.stringify(run1.completed)}\nstderr:\n${client.stderrTail}`);
      assert.equal(run1.text, reply);
      assert.deepEqual(deltas.join(''), reply);
      assert.equal(run1.started?.runId, run1.runId);
      assert.equal(run1.completed.result?.finalResponse, reply);
      assert.deepEqual(seen, [run1.runId]);
      const [listed] = (await client.request('profile/list')).profiles;
      assert.deepEqual([listed.name, listed.home, listed.workers], ['default', home, 1]);
      const seqs = [run1.started.seq, ...run1.deltas.map((d) => d.seq), ...run1.events.map((e) => e.seq), run1.completed.seq].sort((a, b) => a - b);
      assert.deepEqual(seqs, seqs.map((_, i) => i + 1), 'seq is 1..n without gaps');

      const res = await client.request('run/result', { runId: run1.runId });
      assert.equal(res.status, 'complete');

      // A second turn in the same session, via startRun + collectRun-style ids.
      const ids = await client.startRun({ message: 'Again', sessionId: run1.sessionId });
      assert.equal(ids.sessionId, run1.sessionId);
      assert.deepEqual(Object.keys(ids).sort(), ['runId', 'sessionId']);
      const res2 = await poll(() => client.request('run/result', { runId: ids.runId }), (r) => r.status !== 'running');
      assert.equal(res2.status, 'complete', `${JSON.stringify(res2)}\nstderr:\n${client.stderrTail}`);

      assert.deepEqual(await client.shutdown({ timeoutMs: 30_000 }), { code: 0, signal: null });
    } finally {
      await client?.dispose();
      await llm.stop();
    }
  });

  test('a client that opted out of run/delta and status events gets the answer in run/completed, seq gapless', { skip: !python && 'no python for the scripted LLM', timeout: 120_000 }, async () => {
    const reply = 'Hello from the scripted model';
    const llm = await startScriptedLLM(python, reply);
    let client;
    try {
      const home = await makeHome(python, path.join(root, 'optout'), llm.port);
      client = await HermesStdioClient.spawn({ command: hermesBin, env: offlineEnv(home) });
      await client.initialize(
        { name: 'node-test' },
        { capabilities: { optOutNotificationMethods: ['run/delta'], optOutRunEvents: ['status'] } },
      );
      const deltas = [];
      const run = await client.runToCompletion({ message: 'Say hello' }, { onDelta: (d) => deltas.push(d.text), timeoutMs: 90_000 });
      assert.equal(run.completed.status, 'complete', `${JSON.stringify(run.completed)}\nstderr:\n${client.stderrTail}`);
      assert.deepEqual([deltas, run.deltas, run.text], [[], [], '']);
      assert.ok(run.events.every((e) => e.event.type !== 'status'));
      assert.equal(run.completed.result?.finalResponse, reply);
      const seqs = [run.started.seq, ...run.events.map((e) => e.seq), run.completed.seq].sort((a, b) => a - b);
      assert.deepEqual(seqs, seqs.map((_, i) => i + 1), 'seq is 1..n without gaps');
      await assert.rejects(
        client.initialize({ name: 'node-test' }, { capabilities: { optOutNotificationMethods: ['run/completed'] } }),
        (e) => e instanceof HermesStdioError && e.data.type === 'invalid_params',
      );
      assert.deepEqual(await client.shutdown({ timeoutMs: 30_000 }), { code: 0, signal: null });
    } finally {
      await client?.dispose();
      await llm.stop();
    }
  });

  test('runToCompletion answers approvals, questions and compression through onApproval, onClarify and onCompression', { skip: !python && 'no python for the scripted LLM', timeout: 120_000 }, async () => {
    const kept = path.join(root, 'approvals', 'kept');
    const gone = path.join(root, 'approvals', 'gone');
    await mkdir(kept, { recursive: true });
    await mkdir(gone, { recursive: true });
    const llm = await startScriptedLLM(python, 'ok', [
      { tool: 'terminal', arguments: { command: `rm -rf ${kept}` } },
      { text: 'left it' },
      { tool: 'terminal', arguments: { command: `rm -rf ${gone}` } },
      { text: 'removed it' },
      { tool: 'clarify', arguments: { question: 'Which one?', choices: ['red', 'blue'] } },
      { text: 'blue it is' },
      { text: 'compressed' },
    ]);
    let client;
    try {
      const home = await makeHome(python, path.join(root, 'approvals-home'), llm.port);
      client = await HermesStdioClient.spawn({ command: hermesBin, env: offlineEnv(home) });
      await client.initialize({ name: 'node-test' });

      const asked = [];
      const denied = await client.runToCompletion(
        { message: 'clean up' },
        {
          timeoutMs: 90_000,
          onApproval: (request) => {
            asked.push(request.command);
            return { decision: 'deny', reason: 'not that one' };
          },
        },
      );
      assert.equal(denied.completed.status, 'complete', client.stderrTail);
      assert.deepEqual(asked, [`rm -rf ${kept}`]);
      assert.deepEqual(denied.approvals.map((a) => a.outcome ?? 'requested'), ['requested', 'denied']);
      assert.ok(existsSync(kept), 'a denied command never runs');

      const approved = await client.runToCompletion(
        { message: 'clean up', sessionId: denied.sessionId },
        { timeoutMs: 90_000, onApproval: async () => ({ decision: 'once' }) },
      );
      assert.equal(approved.completed.status, 'complete', client.stderrTail);
      assert.equal(approved.approvals.at(-1).outcome, 'approved');
      assert.ok(!existsSync(gone), 'an approved command runs');

      const questions = [];
      const clarified = await client.runToCompletion(
        { message: 'which?', sessionId: denied.sessionId },
        {
          timeoutMs: 90_000,
          onClarify: (q) => {
            questions.push(q.question);
            return 'the blue one';
          },
        },
      );
      assert.equal(clarified.completed.status, 'complete', client.stderrTail);
      assert.deepEqual(questions, ['Which one?']);
      assert.deepEqual(
        clarified.questions.map((q) => q.outcome ?? 'requested'),
        ['requested', 'answered'],
      );
      assert.equal(clarified.questions[1].answer, 'the blue one');

      const summary = [
        { role: 'user', content: 'Summary: the user cleaned up.' },
        { role: 'assistant', content: 'Noted.' },
      ];
      const compressed = await client.runToCompletion(
        { message: 'go on', sessionId: denied.sessionId, compression: 'host', forceCompress: true },
        {
          timeoutMs: 90_000,
          onCompression: (request) => {
            assert.ok(request.messageCount >= 6, JSON.stringify(request.messages));
            return { messages: summary };
          },
        },
      );
      assert.equal(compressed.completed.status, 'complete', client.stderrTail);
      assert.deepEqual(
        compressed.compressions.map((c) => c.outcome ?? 'requested'),
        ['requested', 'compressed'],
      );
      const history = await client.request('session/history', { sessionId: denied.sessionId });
      assert.deepEqual(
        history.messages.map((m) => m.content),
        ['Summary: the user cleaned up.', 'Noted.', 'go on', 'compressed'],
      );

      // session/compress: the same ask, without a turn, carrying the host's focus.
      const compacted = await client.compressToCompletion(
        { sessionId: denied.sessionId, focus: 'the cleanup' },
        {
          timeoutMs: 90_000,
          onCompression: (request) => {
            assert.equal(request.focusTopic, 'the cleanup');
            assert.equal(request.messageCount, 4);
            return { messages: summary };
          },
        },
      );
      assert.equal(compacted.completed.status, 'complete', client.stderrTail);
      assert.equal(compacted.completed.result?.finalResponse, null);
      assert.equal(compacted.completed.result?.messageCount, 2);
      assert.equal(compacted.text, '');
      assert.deepEqual(
        compacted.compressions.map((c) => c.outcome ?? 'requested'),
        ['requested', 'compressed'],
      );
      const after = await client.request('session/history', { sessionId: denied.sessionId });
      assert.deepEqual(after.messages, summary);
      assert.deepEqual(await client.shutdown({ timeoutMs: 30_000 }), { code: 0, signal: null });
    } finally {
      await client?.dispose();
      await llm.stop();
    }
  });

  test('runToCompletion shows an edit held by reviewEdits to onApproval, with its diff, and writes it once approved', { skip: !python && 'no python for the scripted LLM', timeout: 120_000 }, async () => {
    const ws = path.join(root, 'review');
    await mkdir(ws, { recursive: true });
    const llm = await startScriptedLLM(python, 'ok', [
      { tool: 'write_file', arguments: { path: 'notes.md', content: 'hello\n' } },
      { text: 'written' },
    ]);
    let client;
    try {
      const home = await makeHome(python, path.join(root, 'review-home'), llm.port);
      client = await HermesStdioClient.spawn({ command: hermesBin, env: offlineEnv(home) });
      await client.initialize({ name: 'node-test' });
      const shown = [];
      const run = await client.runToCompletion(
        { message: 'write notes', workspace: ws, reviewEdits: true },
        {
          timeoutMs: 90_000,
          onApproval: (request) => {
            shown.push({ written: existsSync(path.join(ws, 'notes.md')), edits: request.edits });
            return { decision: 'once' };
          },
        },
      );
      assert.equal(run.completed.status, 'complete', client.stderrTail);
      assert.deepEqual(shown, [{
        written: false,
        edits: [{ path: path.join(ws, 'notes.md'), kind: 'added', diff: '--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1 @@\n+hello\n' }],
      }]);
      assert.equal(await readFile(path.join(ws, 'notes.md'), 'utf8'), 'hello\n');
    } finally {
      await client?.dispose();
      await llm.stop();
    }
  });

  test('onTriggeredRun collects the run a background command that finished starts in its session', { skip: !python && 'no python for the scripted LLM', timeout: 120_000 }, async () => {
    // hermes marks a process notify_on_complete only after spawning it, and one that ends
    // first never reports: the command ends once the test creates `go` (bounded: 30 s).
    const go = path.join(root, 'trigger-go');
    const wait = `for i in $(seq 600); do [ -e ${go} ] && break; sleep 0.05; done`;
    const command = { command: `${wait}; echo kiwi-count-3`, background: true, notify_on_complete: true };
    const llm = await startScriptedLLM(python, 'seen it', [
      { tool: 'terminal', arguments: command },
      { text: 'started it' },
    ]);
    let client;
    let sub;
    try {
      const home = await makeHome(python, path.join(root, 'trigger-home'), llm.port);
      client = await HermesStdioClient.spawn({ command: hermesBin, env: offlineEnv(home) });
      await client.initialize({ name: 'node-test' });
      const triggered = new Promise((resolve) => {
        sub = client.onTriggeredRun((started, run) => resolve({ started, run }), { timeoutMs: 60_000 });
      });
      const first = await client.runToCompletion({ message: 'count in the background' }, { timeoutMs: 90_000 });
      assert.equal(first.completed.status, 'complete', client.stderrTail);
      assert.equal(first.started.trigger, null);
      await writeFile(go, '');
      const { started, run } = await triggered;
      assert.equal(started.sessionId, first.sessionId);
      assert.equal(started.trigger.type, 'process');
      assert.ok(started.trigger.message.includes('kiwi-count-3'), started.trigger.message);
      const done = await run;
      assert.equal(done.completed.status, 'complete', client.stderrTail);
      assert.equal(done.started, started);
      assert.equal(done.text, 'seen it');
      assert.deepEqual(await client.shutdown({ timeoutMs: 30_000 }), { code: 0, signal: null });
    } finally {
      sub?.dispose();
      await client?.dispose();
      await llm.stop();
    }
  });

  test('shell/exec runs a command, streams its output as shell/output, and asks before a dangerous one', { skip: !python && 'no python for the profile home', timeout: 120_000 }, async () => {
    const home = await makeHome(python, path.join(root, 'shell-home'), 9);
    const work = path.join(root, 'shell-work');
    await mkdir(path.join(work, 'victim'), { recursive: true });
    const client = await HermesStdioClient.spawn({ command: hermesBin, env: offlineEnv(home) });
    try {
      await client.initialize({ name: 'node-test' });
      const pieces = [];
      const sub = client.onNotification('shell/output', (n) => pieces.push(n));
      const done = await client.request(
        'shell/exec',
        { command: ['bash', '-c', 'echo one; echo two >&2'], workspace: work, streamId: 'n-1' },
        { timeoutMs: 90_000 },
      );
      sub.dispose();
      assert.equal(done.exitCode, 0, client.stderrTail);
      assert.equal(done.workspace, work);
      assert.deepEqual(
        pieces.map((n) => [n.streamId, n.stream, n.text]).sort(),
        [['n-1', 'stderr', 'two\n'], ['n-1', 'stdout', 'one\n']],
      );
      const remove = { command: ['rm', '-r', 'victim'], workspace: work };
      await assert.rejects(client.request('shell/exec', remove), (err) => {
        assert.equal(err.code, -32035);
        assert.equal(err.data.type, 'command_dangerous');
        assert.ok(err.data.description);
        return true;
      });
      assert.ok(existsSync(path.join(work, 'victim')));
      assert.equal((await client.request('shell/exec', { ...remove, approved: true })).exitCode, 0);
      assert.ok(!existsSync(path.join(work, 'victim')));
      assert.deepEqual(await client.shutdown({ timeoutMs: 30_000 }), { code: 0, signal: null });
    } finally {
      await client.dispose();
    }
  });

  test('shell/exec in a terminal takes typing through shell/write and a size through shell/resize', { skip: !python && 'no python for the profile home', timeout: 120_000 }, async () => {
    const home = await makeHome(python, path.join(root, 'tty-home'), 9);
    const client = await HermesStdioClient.spawn({ command: hermesBin, env: offlineEnv(home) });
    try {
      await client.initialize({ name: 'node-test' });
      let text = '';
      let seen = () => {};
      const sub = client.onNotification('shell/output', (n) => {
        text += n.text;
        seen();
      });
      const shows = (wanted) => new Promise((resolve) => {
        seen = () => text.includes(wanted) && resolve();
        seen();
      });
      const script = 'read -r -p "name? " who; echo "hi $who"; read -r _; stty size';
      const exec = client.request(
        'shell/exec',
        { command: ['bash', '-c', script], streamId: 't-1', terminal: { rows: 24, cols: 80 } },
        { timeoutMs: 90_000 },
      );
      await shows('name? ');
      assert.deepEqual(await client.request('shell/write', { streamId: 't-1', text: 'ada\r' }), {});
      await shows('hi ada');
      await client.request('shell/resize', { streamId: 't-1', size: { rows: 40, cols: 100 } });
      await client.request('shell/write', { streamId: 't-1', text: '\r' });
      const done = await exec;
      sub.dispose();
      assert.equal(done.exitCode, 0, client.stderrTail);
      assert.ok(text.endsWith('40 100\r\n'), JSON.stringify(text));
      await assert.rejects(client.request('shell/write', { streamId: 't-1', text: 'late' }), (err) => {
        assert.equal(err.data.type, 'command_not_running');
        return true;
      });
      assert.deepEqual(await client.shutdown({ timeoutMs: 30_000 }), { code: 0, signal: null });
    } finally {
      await client.dispose();
    }
  });

  test('runToCompletion gives a sudo password through onSudo, and it never comes back', { skip: !python && 'no python for the scripted LLM', timeout: 120_000 }, async () => {
    // The stand-in sudo of the Python e2e tests, first on a login shell's PATH (hermes'
    // terminal runs commands with one) through a user home of this test's own.
    const fakeSudo = path.join(repoRoot, 'tests/e2e/fixtures/fakesudo');
    const userHome = path.join(root, 'sudo-user');
    await mkdir(userHome, { recursive: true });
    await writeFile(path.join(userHome, '.bash_profile'), `export PATH="${fakeSudo}:$PATH"\n`);
    const llm = await startScriptedLLM(python, 'ok', [
      { tool: 'terminal', arguments: { command: 'sudo echo as-root' } },
      { text: 'done' },
    ]);
    let client;
    try {
      const home = await makeHome(python, path.join(root, 'sudo-home'), llm.port);
      const env = { ...offlineEnv(home), HOME: userHome, PATH: `${fakeSudo}:${process.env.PATH}` };
      client = await HermesStdioClient.spawn({ command: hermesBin, env });
      await client.initialize({ name: 'node-test' });
      const run = await client.runToCompletion(
        { message: 'use sudo' },
        { timeoutMs: 90_000, onSudo: () => 'kiwi-pass' },
      );
      assert.equal(run.completed.status, 'complete', client.stderrTail);
      assert.deepEqual(run.sudoRequests.map((r) => r.outcome ?? 'requested'), ['requested', 'answered']);
      const output = run.events.find((e) => e.event.type === 'tool.completed').event.result;
      assert.ok(output.includes('as-root'), output);
      assert.ok(!JSON.stringify(run).includes('kiwi-pass'));
      assert.deepEqual(await client.shutdown({ timeoutMs: 30_000 }), { code: 0, signal: null });
    } finally {
      await client?.dispose();
      await llm.stop();
    }
  });

  test('runToCompletion gives a skill its secret through onSecret; hermes saves it to the profile', { skip: !python && 'no python for the scripted LLM', timeout: 120_000 }, async () => {
    const llm = await startScriptedLLM(python, 'ok', [
      { tool: 'skill_view', arguments: { name: 'kiwi-api' } },
      { text: 'done' },
    ]);
    let client;
    try {
      const home = await makeHome(python, path.join(root, 'secret-home'), llm.port);
      const skill = path.join(home, 'skills', 'kiwi-api');
      await mkdir(skill, { recursive: true });
      await writeFile(
        path.join(skill, 'SKILL.md'),
        '---\nname: kiwi-api\ndescription: Talks to Kiwi.\nrequired_environment_variables: [KIWI_API_TOKEN]\n---\n# kiwi-api\n',
      );
      client = await HermesStdioClient.spawn({ command: hermesBin, env: offlineEnv(home) });
      await client.initialize({ name: 'node-test' });
      const asked = [];
      const run = await client.runToCompletion(
        { message: 'use kiwi' },
        {
          timeoutMs: 90_000,
          onSecret: (request) => {
            asked.push([request.envVar, request.skillName]);
            return 'kiwi-tok-1';
          },
        },
      );
      assert.equal(run.completed.status, 'complete', client.stderrTail);
      assert.deepEqual(asked, [['KIWI_API_TOKEN', 'kiwi-api']]);
      assert.deepEqual(run.secretRequests.map((r) => r.outcome ?? 'requested'), ['requested', 'stored']);
      assert.ok(!JSON.stringify(run).includes('kiwi-tok-1'));
      const saved = await readFile(path.join(home, '.env'), 'utf8');
      assert.ok(saved.split('\n').includes('KIWI_API_TOKEN=kiwi-tok-1'), saved);
      assert.deepEqual(await client.shutdown({ timeoutMs: 30_000 }), { code: 0, signal: null });
    } finally {
      await client?.dispose();
      await llm.stop();
    }
  });
});

async function poll(fn, done, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`poll timed out; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
