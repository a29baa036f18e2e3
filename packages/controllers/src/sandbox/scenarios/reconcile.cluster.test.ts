// Spec §21.1 TestReconcile scenarios on the real control plane (kube-apiserver, kube-scheduler, kwok).
import { defineReconcileScenarios } from './reconcile.scenarios.ts';

defineReconcileScenarios('cluster');
