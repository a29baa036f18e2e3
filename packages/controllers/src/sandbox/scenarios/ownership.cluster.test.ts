// Spec §21.1 ownership scenarios (adoption, refusal, owner UID, MultiplePods) on the real control
// plane (kube-apiserver, kube-scheduler, kwok).
import { defineOwnershipScenarios } from './ownership.scenarios.ts';

defineOwnershipScenarios('cluster');
