// The claim exclusivity interleavings (issue 10) on the embedded API server.
import { defineClaimInterleavings } from './claim-interleavings.ts';

defineClaimInterleavings('embedded');
