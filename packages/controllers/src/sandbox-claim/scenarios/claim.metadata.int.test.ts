// Spec §21.3 the claim's additionalPodMetadata rules on the embedded API server.
import { defineClaimMetadataScenarios } from './claim.metadata.scenarios.ts';

defineClaimMetadataScenarios('embedded');
