// Spec §21.1 ownership scenarios (adoption, refusal, owner UID, MultiplePods) on the embedded API
// server.
import { defineOwnershipScenarios } from './ownership.scenarios.ts';

defineOwnershipScenarios('embedded');
