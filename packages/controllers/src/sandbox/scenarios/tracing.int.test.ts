// Spec §19.2 tracing scenarios on the embedded API server.
import { defineTracingScenarios } from './tracing.scenarios.ts';

defineTracingScenarios('embedded');
