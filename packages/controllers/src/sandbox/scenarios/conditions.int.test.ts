// Spec §21.1 conditions scenarios on the embedded API server.
import { defineConditionsScenarios } from './conditions.scenarios.ts';

defineConditionsScenarios('embedded');
