// Event correlation on the real kube-apiserver.
import { defineEventCorrelationScenarios } from './events.scenarios.ts';

defineEventCorrelationScenarios('cluster');
