// Event correlation on the embedded API server.
import { defineEventCorrelationScenarios } from './events.scenarios.ts';

defineEventCorrelationScenarios('embedded');
