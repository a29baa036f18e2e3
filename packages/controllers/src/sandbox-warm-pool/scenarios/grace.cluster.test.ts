// Spec §21.4 warm pool readiness-grace scenarios on the real control plane.
import { defineGraceScenarios } from './grace.scenarios.ts';

defineGraceScenarios('cluster');
