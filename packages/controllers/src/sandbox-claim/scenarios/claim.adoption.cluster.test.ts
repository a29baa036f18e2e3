// Spec §21.3 SandboxClaim warm adoption scenarios on the real control plane (kwok runs the Pods).
import { defineClaimAdoptionScenarios } from './claim.adoption.scenarios.ts';

defineClaimAdoptionScenarios('cluster');
