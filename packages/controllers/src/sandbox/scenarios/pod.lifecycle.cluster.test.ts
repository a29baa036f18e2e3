// Spec §21.1 Pod lifecycle scenarios (suspension, terminating Pods, stale annotations) on the real
// control plane (kube-apiserver, kube-scheduler, kwok).
import { definePodLifecycleScenarios } from './pod.lifecycle.scenarios.ts';

definePodLifecycleScenarios('cluster');
