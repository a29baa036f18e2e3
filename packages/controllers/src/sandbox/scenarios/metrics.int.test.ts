// The agent_sandbox_* collector scenarios on the embedded API server.
import { defineMetricsScenarios } from './metrics.scenarios.ts';

defineMetricsScenarios('embedded');
