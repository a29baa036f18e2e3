// Spec §21.4 SandboxTemplate scenarios on the real control plane.
import { defineTemplateScenarios } from './template.scenarios.ts';

defineTemplateScenarios('cluster');
