// Spec §21.4 warm pool readiness-grace scenarios on the embedded API server.
import { defineGraceScenarios } from './grace.scenarios.ts';

defineGraceScenarios('embedded');
