// (4) The doc comments: every {@link} in src/ resolves to a declaration, as an editor's
// hover or typedoc resolves it (TypeScript's own checker, with the package's tsconfig).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

import { pkgRoot } from './support/helpers.mjs';

const LINKS = new Set([ts.SyntaxKind.JSDocLink, ts.SyntaxKind.JSDocLinkCode, ts.SyntaxKind.JSDocLinkPlain]);

test('every {@link} in the doc comments resolves', () => {
  const configPath = path.join(pkgRoot, 'tsconfig.json');
  const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  assert.ok(config, 'tsconfig.json did not parse');
  const program = ts.createProgram(config.fileNames, { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const src = path.join(pkgRoot, 'src') + path.sep;
  const found = new Set(); // a link can be reached twice: as a child and as a comment part
  const unresolved = [];
  for (const file of program.getSourceFiles()) {
    if (!path.resolve(file.fileName).startsWith(src)) continue;
    const where = (node) => `${path.relative(pkgRoot, file.fileName)}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
    const inDoc = (node) => {
      if (LINKS.has(node.kind) && node.name && !found.has(node)) {
        found.add(node);
        if (!checker.getSymbolAtLocation(node.name)) unresolved.push(`${where(node)} {@link ${node.name.getText(file)}}`);
      }
      ts.forEachChild(node, inDoc);
      if (Array.isArray(node.comment)) node.comment.forEach(inDoc); // a tag's comment parts
    };
    const visit = (node) => {
      for (const doc of node.jsDoc ?? []) inDoc(doc);
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  assert.ok(found.size > 0, 'no {@link} found: the walk is broken');
  assert.deepEqual(unresolved, [], `unresolved links:\n${unresolved.join('\n')}`);
});
