// Spec §21.1 TestReconcilePod (Pod metadata) scenarios on the real control plane (kube-apiserver,
// kube-scheduler, kwok).
import { definePodScenarios } from './pod.scenarios.ts';

definePodScenarios('cluster');
