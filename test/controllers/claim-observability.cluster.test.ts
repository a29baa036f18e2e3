// Claim raw patches, launch-type labels and metrics (spec §12.9, §19.1, §21.3) on the real control plane.
import { defineClaimObservability } from './claim-observability.ts';

defineClaimObservability('cluster');
