// The scenario world the pool's single-pass scenarios (grace, passes, status) share: opened before
// a describe block's tests, closed after them together with every PoolPasses opened through it.
import { afterAll, beforeAll } from 'vitest';
import { openScenarioWorld, type ScenarioWorld } from '../../testing/harness.ts';
import { PoolPasses } from '../../testing/pool-passes.ts';
import type { TestTarget } from '../../testing/target.ts';

export type OpenPoolPasses = (
  options?: Parameters<typeof PoolPasses.open>[1],
) => Promise<PoolPasses>;

/**
 * Registers the block's hooks; `onOpen` receives the world once it is open. Returns how to open
 * PoolPasses on it that are closed with the world.
 */
export function poolPassWorld(
  target: TestTarget,
  onOpen: (world: ScenarioWorld) => void,
): OpenPoolPasses {
  let world: ScenarioWorld | undefined;
  const opened: PoolPasses[] = [];
  beforeAll(async () => {
    world = await openScenarioWorld(target);
    onOpen(world);
  });
  afterAll(async () => {
    for (const p of opened) p.close();
    await world?.close();
  });
  return async (options = {}) => {
    if (!world)
      throw new Error('poolPassWorld: PoolPasses opened before the world (use it in a test)');
    const p = await PoolPasses.open(world, options);
    opened.push(p);
    return p;
  };
}
