// Spec §21.1 expiry scenarios on the real control plane (kube-apiserver, kube-scheduler, kwok).
import { defineExpiryScenarios } from './expiry.scenarios.ts';

defineExpiryScenarios('cluster');
