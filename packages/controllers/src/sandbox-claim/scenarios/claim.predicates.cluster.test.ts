// Spec §21.3 claim watch predicates on the real control plane.
import { defineClaimPredicateScenarios } from './claim.predicates.scenarios.ts';

defineClaimPredicateScenarios('cluster');
