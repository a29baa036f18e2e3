// Spec §21.1 status scenarios on the embedded API server.
import { defineReconcileStatusScenarios } from './reconcile.status.scenarios.ts';

defineReconcileStatusScenarios('embedded');
