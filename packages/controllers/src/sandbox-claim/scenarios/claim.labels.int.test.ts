// Spec §21.3 the claim's first-seen times and launch-type labels on the embedded API server.
import { defineClaimLabelScenarios } from './claim.labels.scenarios.ts';

defineClaimLabelScenarios('embedded');
