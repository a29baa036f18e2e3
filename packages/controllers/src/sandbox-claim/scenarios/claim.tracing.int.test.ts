// Spec §12.2/§19.2 SandboxClaim tracing scenarios on the embedded API server.
import { defineClaimTracingScenarios } from './claim.tracing.scenarios.ts';

defineClaimTracingScenarios('embedded');
