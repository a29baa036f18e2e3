// Spec §21.4 SandboxWarmPool scenarios on the embedded API server.
import { defineWarmPoolScenarios } from './warm-pool.scenarios.ts';

defineWarmPoolScenarios('embedded');
