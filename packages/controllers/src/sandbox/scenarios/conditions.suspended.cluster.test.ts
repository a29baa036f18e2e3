// Spec §21.1 Suspended-mode condition scenarios on the real control plane (kube-apiserver, kube-scheduler, kwok).
import { defineSuspendedConditionsScenarios } from './conditions.suspended.scenarios.ts';

defineSuspendedConditionsScenarios('cluster');
