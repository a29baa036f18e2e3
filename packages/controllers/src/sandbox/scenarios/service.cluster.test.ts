// Spec §21.1 TestReconcileService scenarios on the real control plane (kube-apiserver,
// kube-scheduler, kwok).
import { defineServiceScenarios } from './service.scenarios.ts';

defineServiceScenarios('cluster');
