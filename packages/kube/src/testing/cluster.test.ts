import { describe, expect, it } from 'vitest';
import { clusterKubeconfig } from './cluster.ts';

describe('clusterKubeconfig', () => {
  it('outside the cluster project (no globalSetup) throws naming the project to run', () => {
    expect(() => clusterKubeconfig()).toThrow(/npx vitest run --project cluster/);
  });
});
