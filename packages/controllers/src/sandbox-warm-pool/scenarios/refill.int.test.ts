// Spec §21.4 warm pool refill pacing and not-progressing scenarios on the embedded API server.
import { defineRefillScenarios } from './refill.scenarios.ts';

defineRefillScenarios('embedded');
