// Spec §21.1 Pod lifecycle scenarios (suspension, terminating Pods, stale annotations) on the
// embedded API server.
import { definePodLifecycleScenarios } from './pod.lifecycle.scenarios.ts';

definePodLifecycleScenarios('embedded');
