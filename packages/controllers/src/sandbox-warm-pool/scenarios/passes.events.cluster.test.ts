// Spec §21.4 the warm pool's member event handlers on the real control plane (kwok nodes).
import { definePoolEventScenarios } from './passes.events.scenarios.ts';

definePoolEventScenarios('cluster');
