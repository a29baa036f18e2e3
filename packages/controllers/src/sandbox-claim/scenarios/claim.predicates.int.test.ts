// Spec §21.3 claim watch predicates on the embedded API server.
import { defineClaimPredicateScenarios } from './claim.predicates.scenarios.ts';

defineClaimPredicateScenarios('embedded');
