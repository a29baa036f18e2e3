// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { readFileSync } from 'node:fs';
import { plugin as agentSandbox } from './scripts/eslint/test-boundaries.js';

/** @type {Record<string, string[]>} */
const layers = JSON.parse(readFileSync(new URL('./layers.json', import.meta.url), 'utf8'));

// One block per package: it may import only the workspace packages listed for it in layers.json,
// never another package's internals, and never another package's files by relative path.
const boundaryBlocks = Object.entries(layers)
  .filter(([name]) => !name.startsWith('$'))
  .map(([name, allowed]) => ({
    files: [`packages/${name}/**/*.ts`, `packages/${name}/**/*.js`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@agent-sandbox/*', ...allowed.map((a) => `!@agent-sandbox/${a}`)],
              message: `packages/${name} may import only ${allowed.join(', ') || 'no workspace package'} (layers.json)`,
            },
            {
              group: ['@agent-sandbox/*/src/**', '@agent-sandbox/*/internal/**'],
              message: 'import a package through its public entry point only',
            },
            {
              group: ['**/packages/**', '../../../*'],
              message: 'reach another package through its name, not a relative path',
            },
          ],
        },
      ],
    },
  }));

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  ...boundaryBlocks,
  {
    // Test support crosses packages only through declared ./testing exports (scripts/eslint).
    files: ['packages/**/*.ts', 'test/**/*.ts'],
    plugins: { 'agent-sandbox': agentSandbox },
    rules: {
      'agent-sandbox/test-boundaries': 'error',
    },
  },
);
