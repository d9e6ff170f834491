// A tiny stand-in for hermes-stdio, for races the real supervisor cannot be made to lose
// on demand. Usage: node fake-server.mjs MODE
//   burst-exit  answers the first request, writes 200 `test/note` notifications in one
//               write and exits at once (stdout ends while they are still being dispatched)
//   hold-start  never answers `run/start`; answers `$/cancelRequest` with request_cancelled
//   exit-late   on the first request closes stdout, then logs to stderr and exits 3 a little
//               later (the stdout end always comes before the exit status)
import { closeSync } from 'node:fs';

const mode = process.argv[2];
const frame = (o) => {
  const b = Buffer.from(JSON.stringify(o));
  return Buffer.concat([Buffer.from(`Content-Length: ${b.length}\r\n\r\n`), b]);
};

let buf = Buffer.alloc(0);
process.stdin.on('data', (d) => {
  buf = Buffer.concat([buf, d]);
  for (;;) {
    const text = buf.toString('latin1');
    const m = /Content-Length: (\d+)\r\n\r\n/.exec(text);
    if (!m) return;
    const start = m.index + m[0].length;
    const len = Number(m[1]);
    if (buf.length < start + len) return;
    const msg = JSON.parse(buf.subarray(start, start + len).toString('utf8'));
    buf = buf.subarray(start + len);
    handle(msg);
  }
});
process.stdin.on('end', () => process.exit(1));

let first = true;
function handle(msg) {
  const isFirst = first;
  first = false;
  if (mode === 'burst-exit' && isFirst) {
    const out = [frame({ jsonrpc: '2.0', id: msg.id, result: { ok: true } })];
    for (let i = 1; i <= 200; i++) out.push(frame({ jsonrpc: '2.0', method: 'test/note', params: { i } }));
    process.stdout.write(Buffer.concat(out), () => process.exit(0));
  } else if (mode === 'hold-start') {
    if (msg.method === '$/cancelRequest') {
      const error = { code: -32800, message: 'request cancelled', data: { type: 'request_cancelled' } };
      process.stdout.write(frame({ jsonrpc: '2.0', id: msg.params.id, error }));
    } else if (msg.method !== 'run/start' && msg.id !== undefined) {
      process.stdout.write(frame({ jsonrpc: '2.0', id: msg.id, result: null }));
    }
  } else if (mode === 'exit-late' && isFirst) {
    closeSync(1); // process.stdout was never touched, so fd 1 is ours to close
    process.stderr.write('fatal: config broken\n', () => setTimeout(() => process.exit(3), 200));
  }
}
