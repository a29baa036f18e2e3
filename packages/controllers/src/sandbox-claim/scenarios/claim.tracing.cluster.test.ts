// Spec §12.2/§19.2 SandboxClaim tracing scenarios on the real control plane.
import { defineClaimTracingScenarios } from './claim.tracing.scenarios.ts';

defineClaimTracingScenarios('cluster');
