import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const pkgRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const repoRoot = path.resolve(pkgRoot, '../..');
export const schemaPath =
  process.env.HERMES_STDIO_SCHEMA || path.join(repoRoot, 'hermes_stdio/protocol/schema.json');

/** The real supervisor: $HERMES_STDIO_BIN, else the repo's virtualenv. */
export const hermesBin = process.env.HERMES_STDIO_BIN || path.join(repoRoot, '.venv/bin/hermes-stdio');

/** A Python with hermes_stdio importable (for the scripted LLM): $HERMES_STDIO_PYTHON, else next to the binary. */
export function hermesPython() {
  if (process.env.HERMES_STDIO_PYTHON) return process.env.HERMES_STDIO_PYTHON;
  const sibling = path.join(path.dirname(hermesBin), 'python');
  return existsSync(sibling) ? sibling : null;
}

/** Environment for the supervisor, like hermes_stdio.testing.home.offline_env(). */
export function offlineEnv(home) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('HERMES_') && !k.startsWith('TERMINAL_')) env[k] = v;
  }
  return { ...env, HERMES_HOME: home, TIRITH_ENABLED: '0', HERMES_DISABLE_LAZY_INSTALLS: '1', NO_PROXY: '*' };
}

/** A Hermes home under `dir` wired to the scripted LLM on `port` (hermes_stdio.testing.home). */
export async function makeHome(python, dir, port) {
  const made = await run(python, [
    '-c',
    'import sys, pathlib; from hermes_stdio.testing.home import make_home; print(make_home(pathlib.Path(sys.argv[1]), sys.argv[2]))',
    dir,
    `http://127.0.0.1:${port}/v1`,
  ]);
  if (made.code !== 0) throw new Error(`make_home failed: ${made.stderr}`);
  return made.stdout.trim();
}

/** Run a command to completion; resolves {code, stdout, stderr}. */
export function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Start `python -m hermes_stdio.testing.llm_server --port 0` (`script`: replies queued before the
 * default `text`); resolves {port, stop()} once it has printed its port.
 */
export function startScriptedLLM(python, text, script = []) {
  return new Promise((resolve, reject) => {
    const args = ['-m', 'hermes_stdio.testing.llm_server', '--port', '0', '--text', text, '--script', JSON.stringify(script)];
    const child = spawn(python, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`scripted LLM did not print its port in time; stderr: ${err}`));
    }, 15_000);
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = /^(\d+)\s*$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        const exited = new Promise((r) => child.once('exit', r));
        resolve({
          port: Number(m[1]),
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`scripted LLM exited early (code ${code}); stderr: ${err}`));
    });
  });
}

/** Type-check one TypeScript module `source` with the package's tsconfig (strict): tsc's result. */
export async function typecheck(source) {
  const dir = await mkdtemp(path.join(tmpdir(), 'hermes-types-'));
  try {
    await writeFile(path.join(dir, 'check.mts'), source);
    const tsconfig = JSON.parse(await readFile(path.join(pkgRoot, 'tsconfig.json'), 'utf8'));
    tsconfig.compilerOptions = {
      ...tsconfig.compilerOptions,
      noEmit: true,
      rootDir: undefined,
      outDir: undefined,
      typeRoots: [path.join(pkgRoot, 'node_modules/@types')],
    };
    tsconfig.include = [path.join(dir, 'check.mts')];
    await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    const tsc = path.join(pkgRoot, 'node_modules/typescript/bin/tsc');
    return await run(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
