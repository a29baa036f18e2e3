// Spec §21.1 status scenarios on the real control plane (kube-apiserver, kube-scheduler, kwok).
import { defineReconcileStatusScenarios } from './reconcile.status.scenarios.ts';

defineReconcileStatusScenarios('cluster');
