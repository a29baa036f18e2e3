// Spec §21.3 the claim's first-seen times and launch-type labels on the real control plane (kwok nodes).
import { defineClaimLabelScenarios } from './claim.labels.scenarios.ts';

defineClaimLabelScenarios('cluster');
