// Spec §21.3 warm candidate choice (NodeSpread, grace promotion) on the real control plane (kwok nodes).
import { defineClaimCandidateScenarios } from './claim.candidates.scenarios.ts';

defineClaimCandidateScenarios('cluster');
