// The pool status pace and write memory, on the embedded API server.
import { definePoolStatusScenarios } from './status.scenarios.ts';

definePoolStatusScenarios('embedded');
