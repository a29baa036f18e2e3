// Spec §21.3 claim cleanup policy and TTL scenarios on the real control plane (kwok runs the Pods).
import { defineClaimCleanupScenarios } from './claim.cleanup.scenarios.ts';

defineClaimCleanupScenarios('cluster');
