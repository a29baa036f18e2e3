// Claim raw patches, launch-type labels and metrics (spec §12.9, §19.1, §21.3) on the embedded API server.
import { defineClaimObservability } from './claim-observability.ts';

defineClaimObservability('embedded');
