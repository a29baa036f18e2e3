// Spec §19.2 tracing scenarios on the real control plane (kube-apiserver, kube-scheduler, kwok).
import { defineTracingScenarios } from './tracing.scenarios.ts';

defineTracingScenarios('cluster');
