// The pool status pace and write memory, on the real control plane (kwok runs the Pods).
import { definePoolStatusScenarios } from './status.scenarios.ts';

definePoolStatusScenarios('cluster');
