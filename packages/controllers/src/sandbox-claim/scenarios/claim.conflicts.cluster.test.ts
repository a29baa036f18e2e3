// Spec §21.3 claim conflict, tracing and metrics scenarios on the real control plane.
import { defineClaimConflictScenarios } from './claim.conflicts.scenarios.ts';

defineClaimConflictScenarios('cluster');
