// Spec §21.3 claim conflict, tracing and metrics scenarios on the embedded API server.
import { defineClaimConflictScenarios } from './claim.conflicts.scenarios.ts';

defineClaimConflictScenarios('embedded');
