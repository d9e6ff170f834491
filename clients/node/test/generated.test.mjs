// (1) The generated protocol types compile and cover every method in the schema.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

import * as protocol from '../dist/index.js';
import { pkgRoot, run, schemaPath, typecheck } from './support/helpers.mjs';

const schema = JSON.parse(await readFile(schemaPath, 'utf8'));
const methods = schema['x-methods'];
const notifications = schema['x-notifications'];
const kind = (k) => Object.keys(methods).filter((m) => methods[m].kind === k).sort();

test('runtime method lists match x-methods / x-notifications', () => {
  assert.deepEqual([...protocol.HOST_REQUEST_METHODS].sort(), kind('request'));
  assert.deepEqual([...protocol.HOST_NOTIFICATION_METHODS].sort(), kind('notification'));
  assert.deepEqual([...protocol.SERVER_NOTIFICATION_METHODS].sort(), Object.keys(notifications).sort());
  assert.equal(protocol.PROTOCOL_VERSION, schema['x-protocolVersion']);
});

test('error codes match x-errors', () => {
  assert.deepEqual({ ...protocol.ERROR_CODES }, schema['x-errors']);
});

test('generated file declares every $def', async () => {
  const src = await readFile(path.join(pkgRoot, 'src/generated/protocol.ts'), 'utf8');
  for (const name of Object.keys(schema.$defs)) {
    assert.match(src, new RegExp(`^export (interface|type) ${name}\\b`, 'm'), `missing ${name}`);
  }
});

test('generated types compile and the method maps hold every schema method with its types', async () => {
  // A type-level test generated from the schema, checked with tsc --noEmit.
  const ref = (s) => (s && s.$ref ? s.$ref.slice('#/$defs/'.length) : null);
  const gen = path.join(pkgRoot, 'src/generated/protocol.js');
  const client = path.join(pkgRoot, 'src/index.js');
  const lines = [
    `import type * as P from ${JSON.stringify(gen)};`,
    `import { HermesStdioClient, HermesStdioError } from ${JSON.stringify(client)};`,
    `import type { RunEvent } from ${JSON.stringify(client)};`,
    'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;',
    'const ok = <T extends true>(): T => true as T;',
    'type Keys<T> = keyof T;',
  ];
  const all = (list, iface) =>
    `ok<Equal<Keys<P.${iface}>, ${list.map((m) => JSON.stringify(m)).join(' | ') || 'never'}>>();`;
  lines.push(all(kind('request'), 'HostRequests'));
  lines.push(all(kind('notification'), 'HostNotifications'));
  lines.push(all(Object.keys(notifications), 'ServerNotifications'));
  for (const m of kind('request')) {
    const k = JSON.stringify(m);
    if (ref(methods[m].params)) lines.push(`ok<Equal<P.HostRequests[${k}]['params'], P.${ref(methods[m].params)}>>();`);
    if (ref(methods[m].result)) lines.push(`ok<Equal<P.HostRequests[${k}]['result'], P.${ref(methods[m].result)}>>();`);
  }
  for (const m of kind('notification')) {
    lines.push(`ok<Equal<P.HostNotifications[${JSON.stringify(m)}], P.${ref(methods[m].params)}>>();`);
  }
  for (const [m, n] of Object.entries(notifications)) {
    lines.push(`ok<Equal<P.ServerNotifications[${JSON.stringify(m)}], P.${ref(n.params)}>>();`);
  }
  // The client's typed API: correct calls compile, wrong ones do not.
  lines.push(`
export async function usage(c: HermesStdioClient): Promise<void> {
  const s: P.SupervisorStatusResult = await c.request('supervisor/status');
  const r = await c.request('run/start', { message: 'hi' });
  const id: string = r.runId;
  await c.request('session/list');
  // @ts-expect-error run/start needs params
  await c.request('run/start');
  // @ts-expect-error sessionId must be a string
  await c.request('session/status', { sessionId: 5 });
  // @ts-expect-error unknown method
  await c.request('no/such', {});
  c.onNotification('run/delta', (d) => { const t: string = d.text; void t; });
  c.onNotification('run/event', (n) => {
    const e: RunEvent = n.event;
    if (e.type === 'tool.completed') { const out: string | null = e.result; void out; }
    if (e.type === 'usage') { const used: number = e.usage.totalTokens; void used; }
    // @ts-expect-error a thinking event has no result
    if (e.type === 'thinking') void e.result;
  });
  // @ts-expect-error run/completed has no text
  c.onNotification('run/completed', (d) => d.text);
  try { await c.shutdown(); } catch (e) { if (e instanceof HermesStdioError) { const n: number = e.code; const t: string = e.data.type; void n; void t; } }
  void s; void id;
}
`);
  const res = await typecheck(lines.join('\n') + '\n');
  assert.equal(res.code, 0, `tsc failed:\n${res.stdout}${res.stderr}\n--- check.mts ---\n${lines.join('\n')}`);
});
