// Fails when a generated file is stale: `npm run generate` must have been run and committed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedFiles } from './generated-files.ts';

describe('generated files are up to date (run `npm run generate` if this fails)', () => {
  for (const { path, content } of generatedFiles()) {
    it(path.replace(/^.*\/(packages|scripts)\//, '$1/'), () => {
      const onDisk = readFileSync(path, 'utf8');
      expect(onDisk === content, `${path} is stale: run npm run generate`).toBe(true);
    });
  }
});
