// Spec §21.1 TestReconcileService scenarios on the embedded API server.
import { defineServiceScenarios } from './service.scenarios.ts';

defineServiceScenarios('embedded');
