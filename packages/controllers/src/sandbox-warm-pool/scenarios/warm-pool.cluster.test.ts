// Spec §21.4 SandboxWarmPool scenarios on the real control plane (kwok runs the Pods).
import { defineWarmPoolScenarios } from './warm-pool.scenarios.ts';

defineWarmPoolScenarios('cluster');
