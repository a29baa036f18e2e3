// Spec §21.3 claim cleanup policy and TTL scenarios on the embedded API server.
import { defineClaimCleanupScenarios } from './claim.cleanup.scenarios.ts';

defineClaimCleanupScenarios('embedded');
