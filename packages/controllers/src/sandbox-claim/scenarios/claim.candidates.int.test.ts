// Spec §21.3 warm candidate choice (NodeSpread, grace promotion) on the embedded API server.
import { defineClaimCandidateScenarios } from './claim.candidates.scenarios.ts';

defineClaimCandidateScenarios('embedded');
