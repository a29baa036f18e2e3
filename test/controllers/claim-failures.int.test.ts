// The claim write-failure and cache-lag cases (spec §21.3) on the embedded API server.
import { defineClaimFailures } from './claim-failures.ts';

defineClaimFailures('embedded');
