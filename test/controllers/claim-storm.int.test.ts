// The claim storm on the embedded API server (issue 10); the scenario: claim-storm.ts.
import { defineClaimStorm } from './claim-storm.ts';

defineClaimStorm('embedded');
