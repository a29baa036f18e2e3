// The agent_sandbox_* collector scenarios on the real control plane.
import { defineMetricsScenarios } from './metrics.scenarios.ts';

defineMetricsScenarios('cluster');
