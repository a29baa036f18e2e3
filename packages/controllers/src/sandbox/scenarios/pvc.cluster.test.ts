// Spec §21.1 TestReconcilePVCs and TestMergeVolumeClaimVolumes scenarios on the real control plane
// (kube-apiserver, kube-scheduler, kwok).
import { definePvcScenarios } from './pvc.scenarios.ts';

definePvcScenarios('cluster');
