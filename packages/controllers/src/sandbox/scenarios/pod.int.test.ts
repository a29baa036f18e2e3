// Spec §21.1 TestReconcilePod (Pod metadata) scenarios on the embedded API server.
import { definePodScenarios } from './pod.scenarios.ts';

definePodScenarios('embedded');
