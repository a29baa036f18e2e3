// Spec §21.4 pool passes on a lagging cache, on the real control plane (kwok runs the Pods).
import { definePoolPassScenarios } from './passes.scenarios.ts';

definePoolPassScenarios('cluster');
