// Spec §21.4 the warm pool's member event handlers on the embedded API server.
import { definePoolEventScenarios } from './passes.events.scenarios.ts';

definePoolEventScenarios('embedded');
