// The claim adoption conflict suite and status-lock cases (spec §21.3) on the embedded API server.
import { defineClaimConflicts } from './claim-conflicts.ts';

defineClaimConflicts('embedded');
