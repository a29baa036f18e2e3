// Spec §21.3 candidate choice from the warm queue (FIFO, Ready first, stale and ineligible members) on the embedded API server.
import { defineClaimQueueScenarios } from './claim.queue.scenarios.ts';

defineClaimQueueScenarios('embedded');
