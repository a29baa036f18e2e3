// Spec §21.1 conditions scenarios on the real control plane (kube-apiserver, kube-scheduler, kwok).
import { defineConditionsScenarios } from './conditions.scenarios.ts';

defineConditionsScenarios('cluster');
