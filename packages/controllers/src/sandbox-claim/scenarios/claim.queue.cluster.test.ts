// Spec §21.3 candidate choice from the warm queue (FIFO, Ready first, stale and ineligible members) on the real control plane (kwok nodes).
import { defineClaimQueueScenarios } from './claim.queue.scenarios.ts';

defineClaimQueueScenarios('cluster');
