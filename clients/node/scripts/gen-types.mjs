#!/usr/bin/env node
// Generate src/generated/protocol.ts from the hermes-stdio protocol JSON Schema.
//
//   node scripts/gen-types.mjs            write src/generated/protocol.ts
//   node scripts/gen-types.mjs --check    regenerate into a temp file; exit 1 if it differs
//   options: --schema PATH (default $HERMES_STDIO_SCHEMA or ../../hermes_stdio/protocol/schema.json)
//            --out PATH    (default src/generated/protocol.ts)
//
// Every $def is compiled on its own with json-schema-to-typescript; `$ref`s to other
// $defs are rewritten to `tsType` references so each type is declared exactly once.
// x-methods / x-notifications become typed method maps; x-workerMethods is internal
// to the server and skipped.
import { compile } from 'json-schema-to-typescript';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgRoot = path.resolve(here, '..');

function parseArgs(argv) {
  const opts = {
    check: false,
    schema: process.env.HERMES_STDIO_SCHEMA || path.resolve(pkgRoot, '../../hermes_stdio/protocol/schema.json'),
    out: path.resolve(pkgRoot, 'src/generated/protocol.ts'),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--check') opts.check = true;
    else if (a === '--schema') opts.schema = path.resolve(argv[++i]);
    else if (a === '--out') opts.out = path.resolve(argv[++i]);
    else throw new Error(`unknown argument: ${a}`);
  }
  return opts;
}

const DEF_PREFIX = '#/$defs/';

function refName(ref) {
  if (typeof ref !== 'string' || !ref.startsWith(DEF_PREFIX)) {
    throw new Error(`unsupported $ref (only local ${DEF_PREFIX}* refs are supported): ${ref}`);
  }
  return ref.slice(DEF_PREFIX.length);
}

/** Deep-copy `node`, replacing `{$ref: '#/$defs/X', ...}` with `{tsType: 'X', ...}`. */
function rewriteRefs(node, defs) {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, defs));
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref') {
      const name = refName(v);
      if (!(name in defs)) throw new Error(`$ref to missing $def: ${v}`);
      out.tsType = name;
    } else {
      out[k] = rewriteRefs(v, defs);
    }
  }
  return out;
}

/** An object with no properties and no additional properties: `{}` in TS accepts anything. */
function isEmptyObject(schema) {
  return (
    schema.type === 'object' &&
    schema.additionalProperties === false &&
    Object.keys(schema.properties ?? {}).length === 0
  );
}

const COMPILE_OPTS = {
  bannerComment: '',
  additionalProperties: false, // the schema is explicit about additionalProperties everywhere
  declareExternallyReferenced: false,
  enableConstEnums: false,
  strictIndexSignatures: false,
  unknownAny: true,
  unreachableDefinitions: false,
  format: true,
  style: { singleQuote: true, printWidth: 100, trailingComma: 'all' },
};

async function compileNamed(name, schema, defs) {
  let s = rewriteRefs(schema, defs);
  if (isEmptyObject(s)) s = { ...s, tsType: 'Record<string, never>' };
  // Strip keywords that would rename the type or pull in other definitions.
  delete s.title;
  delete s.$id;
  delete s.$defs;
  const ts = await compile(s, name, COMPILE_OPTS);
  return ts.trim();
}

function pascal(method) {
  return method
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('');
}

function jsdoc(text, indent = '') {
  if (!text) return '';
  return `${indent}/** ${text.replace(/\*\//g, '*\\/')} */\n`;
}

/**
 * The TS type name for a method's params/result schema: a $def name for a bare `$ref`,
 * otherwise a generated alias `<Method><Suffix>` compiled from the inline schema.
 */
async function methodTypeRef(method, suffix, schema, defs, extra) {
  if (schema === undefined) return 'undefined';
  const keys = Object.keys(schema).filter((k) => k !== 'description');
  if (keys.length === 1 && keys[0] === '$ref') return refName(schema.$ref);
  const name = `${pascal(method)}${suffix}`;
  if (name in defs || extra.has(name)) throw new Error(`generated name collides: ${name}`);
  extra.set(name, await compileNamed(name, schema, defs));
  return name;
}

export async function generate(schemaPath) {
  const schema = JSON.parse(await readFile(schemaPath, 'utf8'));
  const defs = schema.$defs ?? {};
  const methods = schema['x-methods'] ?? {};
  const notifications = schema['x-notifications'] ?? {};
  const version = schema['x-protocolVersion'];
  if (!Number.isInteger(version)) throw new Error('schema has no integer x-protocolVersion');

  const defNames = Object.keys(defs).sort();
  const defBlocks = [];
  for (const name of defNames) defBlocks.push(await compileNamed(name, defs[name], defs));

  const extra = new Map();
  const requests = [];
  const hostNotifs = [];
  for (const method of Object.keys(methods).sort()) {
    const m = methods[method];
    if (m.direction && m.direction !== 'hostToServer') {
      throw new Error(`x-methods.${method}: unexpected direction ${m.direction}`);
    }
    const params = await methodTypeRef(method, 'Params', m.params, defs, extra);
    if (m.kind === 'request') {
      const result = await methodTypeRef(method, 'Result', m.result, defs, extra);
      requests.push({ method, params, result, description: m.description });
    } else if (m.kind === 'notification') {
      hostNotifs.push({ method, params, description: m.description });
    } else {
      throw new Error(`x-methods.${method}: unknown kind ${m.kind}`);
    }
  }
  const serverNotifs = [];
  for (const method of Object.keys(notifications).sort()) {
    const n = notifications[method];
    if (n.direction && n.direction !== 'serverToHost') {
      throw new Error(`x-notifications.${method}: unexpected direction ${n.direction}`);
    }
    const params = await methodTypeRef(method, 'Params', n.params, defs, extra);
    serverNotifs.push({ method, params, description: n.description, runScoped: n.runScoped === true });
  }

  const q = (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const lines = [];
  lines.push('/* eslint-disable */');
  lines.push('// GENERATED FILE - DO NOT EDIT.');
  lines.push('// Source: hermes_stdio/protocol/schema.json (via `hermes-stdio schema`).');
  lines.push('// Regenerate with `npm run gen`; `npm run check-gen` fails when this file is stale.');
  lines.push('');
  lines.push(`/** The protocol version this client was generated for (schema x-protocolVersion). */`);
  lines.push(`export const PROTOCOL_VERSION = ${version} as const;`);
  lines.push(`/** The schema's $id. */`);
  lines.push(`export const SCHEMA_ID = ${q(String(schema.$id ?? ''))} as const;`);
  lines.push('');
  lines.push('// ---- Record types ($defs) ----');
  lines.push('');
  lines.push(defBlocks.join('\n\n'));
  lines.push('');
  if (extra.size) {
    lines.push('// ---- Inline method types (x-methods / x-notifications without a $ref) ----');
    lines.push('');
    lines.push([...extra.values()].join('\n\n'));
    lines.push('');
  }
  lines.push('// ---- Method maps ----');
  lines.push('');
  lines.push('/** Requests the host sends to the server (x-methods, kind "request"). */');
  lines.push('export interface HostRequests {');
  for (const r of requests) {
    lines.push(jsdoc(r.description, '  ') + `  ${q(r.method)}: { params: ${r.params}; result: ${r.result} };`);
  }
  lines.push('}');
  lines.push('');
  lines.push('/** Notifications the host sends to the server (x-methods, kind "notification"); values are params. */');
  lines.push('export interface HostNotifications {');
  for (const n of hostNotifs) lines.push(jsdoc(n.description, '  ') + `  ${q(n.method)}: ${n.params};`);
  lines.push('}');
  lines.push('');
  lines.push('/** Notifications the server sends to the host (x-notifications); values are params. */');
  lines.push('export interface ServerNotifications {');
  for (const n of serverNotifs) lines.push(jsdoc(n.description, '  ') + `  ${q(n.method)}: ${n.params};`);
  lines.push('}');
  lines.push('');
  lines.push('export type HostRequestMethod = keyof HostRequests;');
  lines.push('export type HostNotificationMethod = keyof HostNotifications;');
  lines.push('export type ServerNotificationMethod = keyof ServerNotifications;');
  lines.push('');
  const arr = (name, type, items) =>
    `export const ${name}: readonly ${type}[] = [\n${items.map((i) => `  ${q(i.method)},`).join('\n')}\n];`;
  lines.push(arr('HOST_REQUEST_METHODS', 'HostRequestMethod', requests));
  lines.push(arr('HOST_NOTIFICATION_METHODS', 'HostNotificationMethod', hostNotifs));
  lines.push(arr('SERVER_NOTIFICATION_METHODS', 'ServerNotificationMethod', serverNotifs));
  const runScoped = serverNotifs.filter((n) => n.runScoped);
  lines.push('/** Server notifications that belong to one run (schema runScoped): runId, sessionId, seq. */');
  lines.push(`export type RunNotificationMethod = ${runScoped.map((n) => q(n.method)).join(' | ') || 'never'};`);
  lines.push(arr('RUN_NOTIFICATION_METHODS', 'RunNotificationMethod', runScoped));
  lines.push('');
  const errors = schema['x-errors'] ?? {};
  lines.push('/** Error codes by their stable `data.type` (schema x-errors). */');
  lines.push('export const ERROR_CODES = {');
  for (const [type, code] of Object.entries(errors)) lines.push(`  ${q(type)}: ${code},`);
  lines.push('} as const;');
  lines.push('export type ErrorDataType = keyof typeof ERROR_CODES;');
  lines.push('');
  return lines.join('\n');
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const text = await generate(opts.schema);
  if (!opts.check) {
    await mkdir(path.dirname(opts.out), { recursive: true });
    await writeFile(opts.out, text, 'utf8');
    console.log(`wrote ${path.relative(process.cwd(), opts.out)} from ${opts.schema}`);
    return;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'hermes-gen-'));
  try {
    const tmp = path.join(dir, 'protocol.ts');
    await writeFile(tmp, text, 'utf8');
    const fresh = await readFile(tmp, 'utf8');
    let current;
    try {
      current = await readFile(opts.out, 'utf8');
    } catch {
      current = null;
    }
    if (current !== fresh) {
      console.error(
        `${path.relative(process.cwd(), opts.out)} is out of date with ${opts.schema}; run \`npm run gen\` and commit the result.`,
      );
      if (current !== null) printFirstDiff(current, fresh);
      process.exitCode = 1;
    } else {
      console.log(`${path.relative(process.cwd(), opts.out)} is up to date.`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function printFirstDiff(a, b) {
  const al = a.split('\n');
  const bl = b.split('\n');
  for (let i = 0; i < Math.max(al.length, bl.length); i++) {
    if (al[i] !== bl[i]) {
      console.error(`first difference at line ${i + 1}:`);
      console.error(`  checked in: ${JSON.stringify(al[i])}`);
      console.error(`  generated:  ${JSON.stringify(bl[i])}`);
      return;
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
