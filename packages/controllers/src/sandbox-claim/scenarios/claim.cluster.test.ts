// Spec §21.3 SandboxClaim scenarios on the real control plane (kwok runs the Pods).
import { defineClaimScenarios } from './claim.scenarios.ts';

defineClaimScenarios('cluster');
