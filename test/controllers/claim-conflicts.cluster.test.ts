// The claim adoption conflict suite and status-lock cases (spec §21.3) on the real control plane.
import { defineClaimConflicts } from './claim-conflicts.ts';

defineClaimConflicts('cluster');
