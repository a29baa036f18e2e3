// Spec §21.4 SandboxTemplate scenarios on the embedded API server.
import { defineTemplateScenarios } from './template.scenarios.ts';

defineTemplateScenarios('embedded');
