// Spec §21.4 warm pool refill pacing and not-progressing scenarios on the real control plane.
import { defineRefillScenarios } from './refill.scenarios.ts';

defineRefillScenarios('cluster');
