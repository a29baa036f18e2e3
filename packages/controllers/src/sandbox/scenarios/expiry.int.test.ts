// Spec §21.1 expiry scenarios on the embedded API server.
import { defineExpiryScenarios } from './expiry.scenarios.ts';

defineExpiryScenarios('embedded');
