// Spec §21.2 writebehind_coalesce_test scenarios on the real control plane (kube-apiserver,
// kube-scheduler, kwok).
import { defineWriteBehindScenarios } from './write-behind.scenarios.ts';

defineWriteBehindScenarios('cluster');
