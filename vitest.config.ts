import { defineConfig } from 'vitest/config';

// One runner, three projects (STYLE.md "Test layout"): unit must pass offline; `npm test` runs
// unit and integration; `cluster` needs the real control plane (test/cluster) and runs in .ci/run.
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/*.cluster.test.ts', '**/node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['packages/*/src/**/*.int.test.ts', 'test/**/*.int.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 600_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: ['test/**/*.cluster.test.ts', 'packages/*/src/**/*.cluster.test.ts'],
          // Starts or reuses the harness once and provides its kubeconfig (clusterKubeconfig()).
          globalSetup: ['test/support/cluster-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 1_800_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
