// @ts-check
// ESLint rule `agent-sandbox/test-boundaries` (STYLE.md "Each package has the same shape"):
//   - a package's src/ never imports the repository's test/ folder (relative paths that land in
//     test/); no exceptions (cluster tests get the harness from the cluster project's globalSetup);
//   - `@agent-sandbox/<pkg>/testing` is imported only where <pkg>'s package.json declares the
//     `./testing` export (an undeclared one resolves nowhere for other packages);
//   - files under test/ reach packages by name, never by a relative path into packages/.
// scripts/eslint/test-boundaries.test.ts runs ESLint's API on fixture code to prove each case.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** @param {string} path */
const posix = (path) => path.split(sep).join('/');

/** @type {Map<string, boolean>} */
const declared = new Map();
/** @param {string} pkg */
function declaresTesting(pkg) {
  let known = declared.get(pkg);
  if (known === undefined) {
    const file = resolve(ROOT, 'packages', pkg, 'package.json');
    const exports = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).exports : undefined;
    known = typeof exports === 'object' && exports !== null && './testing' in exports;
    declared.set(pkg, known);
  }
  return known;
}

/** @type {import('eslint').Rule.RuleModule} */
export const testBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: "keep tests' support code behind declared ./testing exports" },
    schema: [],
    messages: {
      srcToTest:
        "{{file}} imports {{target}} from the repository's test/ folder; a package's src/ may not: move the helper into a package's src/testing and import it as @agent-sandbox/<pkg>/testing",
      undeclaredTesting:
        '{{spec}}: packages/{{pkg}}/package.json declares no "./testing" export; add "./testing": "./src/testing/index.ts" to its exports',
      testToPackageFile:
        '{{file}} reaches {{target}} by a relative path; import the package by name (@agent-sandbox/<pkg> or @agent-sandbox/<pkg>/testing)',
    },
  },
  create(context) {
    const file = posix(relative(ROOT, context.filename));
    const inPackageSrc = /^packages\/[^/]+\/src\//.test(file);
    const inTest = file.startsWith('test/');
    /** @param {import('estree').Node} node @param {unknown} spec */
    function check(node, spec) {
      if (typeof spec !== 'string') return;
      if (spec.startsWith('.')) {
        const target = posix(relative(ROOT, resolve(dirname(context.filename), spec)));
        if (inPackageSrc && (target === 'test' || target.startsWith('test/')))
          context.report({ node, messageId: 'srcToTest', data: { file, target } });
        if (inTest && target.startsWith('packages/'))
          context.report({ node, messageId: 'testToPackageFile', data: { file, target } });
      }
      const m = /^@agent-sandbox\/([^/]+)\/testing(?:\/|$)/.exec(spec);
      if (m?.[1] && !declaresTesting(m[1]))
        context.report({ node, messageId: 'undeclaredTesting', data: { spec, pkg: m[1] } });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => check(node, node.source?.value),
      ImportExpression: (node) =>
        check(node, node.source.type === 'Literal' ? node.source.value : undefined),
    };
  },
};

export const plugin = { rules: { 'test-boundaries': testBoundaries } };
