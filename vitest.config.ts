import { defineConfig } from 'vitest/config';

// One runner, three projects (STYLE.md "Test layout"): unit must pass offline; `npm test` runs
// unit and integration; e2e is opt-in.
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
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
    ],
  },
});
