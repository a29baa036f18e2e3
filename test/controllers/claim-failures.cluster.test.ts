// The claim write-failure and cache-lag cases (spec §21.3) on the real control plane.
import { defineClaimFailures } from './claim-failures.ts';

defineClaimFailures('cluster');
