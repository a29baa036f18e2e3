// The claim exclusivity interleavings (issue 10) on the real control plane.
import { defineClaimInterleavings } from './claim-interleavings.ts';

defineClaimInterleavings('cluster');
