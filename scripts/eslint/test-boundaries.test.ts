// The test-boundaries rule, run through ESLint's API on fixture code at paths inside the
// repository (the files need not exist: the rule reads only the path and the package.json files).
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { plugin } from './test-boundaries.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const eslint = new ESLint({
  cwd: ROOT,
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { 'agent-sandbox': plugin },
      rules: {
        'agent-sandbox/test-boundaries': 'error',
      },
    },
  ],
});

async function messages(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${path}` });
  return (result?.messages ?? []).map((m) => m.message);
}

describe('agent-sandbox/test-boundaries', () => {
  it("fails a package src/ file that imports the repository's test/ folder", async () => {
    const found = await messages(
      'packages/kube/src/client.int.test.ts',
      "import { ensureCluster } from '../../../test/support/cluster.ts';\n",
    );
    expect(found).toEqual([
      expect.stringMatching(
        /^packages\/kube\/src\/client\.int\.test\.ts imports test\/support\/cluster\.ts from the repository's test\/ folder/,
      ),
    ]);
    // Dynamic imports and re-exports count too.
    expect(
      await messages(
        'packages/kube/src/x.ts',
        "export * from '../../../test/support/cluster.ts';\nawait import('../../../test/support/cluster.ts');\n",
      ),
    ).toHaveLength(2);
  });

  it('has no exceptions: the scenario suites once allowed to reach test/support fail too', async () => {
    expect(
      await messages(
        'packages/controllers/src/sandbox/scenarios/x.scenarios.ts',
        "import type { TestTarget } from '../../../../../test/support/target.ts';\n",
      ),
    ).toEqual([
      expect.stringMatching(
        /x\.scenarios\.ts imports test\/support\/target\.ts from the repository's test\/ folder/,
      ),
    ]);
  });

  it('lets package-local relative imports and declared testing exports through', async () => {
    expect(
      await messages(
        'packages/controllers/src/sandbox/scenarios/x.scenarios.ts',
        "import type { TestTarget } from '../../testing/target.ts';\nimport { a } from '../plan.ts';\nimport { clusterKubeconfig } from '@agent-sandbox/kube/testing';\n",
      ),
    ).toEqual([]);
  });

  it('fails an undeclared cross-package testing import and passes a declared one', async () => {
    const found = await messages(
      'test/clients/x.ts',
      "import { x } from '@agent-sandbox/runtime/testing';\nimport { startTestApiServer } from '@agent-sandbox/apiserver/testing';\n",
    );
    expect(found).toEqual([
      '@agent-sandbox/runtime/testing: packages/runtime/package.json declares no "./testing" export; add "./testing": "./src/testing/index.ts" to its exports',
    ]);
  });

  it('fails a test/ file that reaches into packages/ by a relative path', async () => {
    const found = await messages(
      'test/clients/support.ts',
      "import { listen } from '../../packages/apiserver/src/node-server.ts';\n",
    );
    expect(found).toEqual([
      expect.stringMatching(/reaches packages\/apiserver\/src\/node-server\.ts by a relative path/),
    ]);
  });
});
