// Spec §21.3 SandboxClaim scenarios on the embedded API server.
import { defineClaimScenarios } from './claim.scenarios.ts';

defineClaimScenarios('embedded');
