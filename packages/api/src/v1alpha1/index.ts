export * from './sandbox.ts';
export * from './sandbox-template.ts';
export * from './sandbox-claim.ts';
export * from './sandbox-warm-pool.ts';
