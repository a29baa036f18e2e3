// Spec §21.1 TestReconcilePVCs and TestMergeVolumeClaimVolumes scenarios on the embedded API server.
import { definePvcScenarios } from './pvc.scenarios.ts';

definePvcScenarios('embedded');
