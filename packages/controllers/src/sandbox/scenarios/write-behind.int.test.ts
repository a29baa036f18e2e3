// Spec §21.2 writebehind_coalesce_test scenarios on the embedded API server.
import { defineWriteBehindScenarios } from './write-behind.scenarios.ts';

defineWriteBehindScenarios('embedded');
