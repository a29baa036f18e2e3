// Spec §21.4 pool passes on a lagging cache, on the embedded API server.
import { definePoolPassScenarios } from './passes.scenarios.ts';

definePoolPassScenarios('embedded');
