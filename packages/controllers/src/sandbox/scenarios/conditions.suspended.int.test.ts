// Spec §21.1 Suspended-mode condition scenarios on the embedded API server.
import { defineSuspendedConditionsScenarios } from './conditions.suspended.scenarios.ts';

defineSuspendedConditionsScenarios('embedded');
