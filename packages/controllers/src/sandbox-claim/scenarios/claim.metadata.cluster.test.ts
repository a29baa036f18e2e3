// Spec §21.3 the claim's additionalPodMetadata rules on the real control plane (kwok nodes).
import { defineClaimMetadataScenarios } from './claim.metadata.scenarios.ts';

defineClaimMetadataScenarios('cluster');
