// Spec §21.1 TestReconcile scenarios on the embedded API server.
import { defineReconcileScenarios } from './reconcile.scenarios.ts';

defineReconcileScenarios('embedded');
