// Keeps the NetworkPolicy table current: a pass after any Pod, Namespace or NetworkPolicy event
// and periodically (runLevelSync), driving the level-triggered PolicyEnforcer.
import { NAMESPACES, PODS } from '@agent-sandbox/kube';
import { runLevelSync, type LevelSyncOptions } from '../../sync/level-sync.ts';
import { NETWORK_POLICIES } from './policy-enforcer.ts';

export type PolicySyncOptions = Omit<LevelSyncOptions, 'watch'>;

/** Runs until `signal` aborts; never rejects (see runLevelSync). */
export function runPolicySync(o: PolicySyncOptions, signal: AbortSignal): Promise<void> {
  return runLevelSync({ ...o, watch: [PODS, NAMESPACES, NETWORK_POLICIES] }, signal);
}
