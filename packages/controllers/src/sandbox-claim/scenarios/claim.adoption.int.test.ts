// Spec §21.3 SandboxClaim warm adoption scenarios on the embedded API server.
import { defineClaimAdoptionScenarios } from './claim.adoption.scenarios.ts';

defineClaimAdoptionScenarios('embedded');
