// The claim storm on the real control plane (issue 10): kwok runs the Pods, kube-controller-
// manager collects garbage; the scenario: claim-storm.ts.
import { defineClaimStorm } from './claim-storm.ts';

defineClaimStorm('cluster');
