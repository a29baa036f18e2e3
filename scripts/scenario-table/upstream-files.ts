// The upstream test files spec §21.3–21.4 describes only by their bullets, with the upstream tests
// in them that our tests are named after. A file missing here is one row under its own name
// (a test claims it as `<file>_test: …`).
export const FILE_TESTS: Readonly<Record<string, readonly string[]>> = {
  'sandboxclaim_conditions_test.go': ['TestSandboxClaimConditions'],
  'sandboxclaim_pod_exclusivity_test.go': ['TestSandboxClaimPodExclusivity'],
  'sandboxwarmpool_controller_test.go': [
    'TestSandboxWarmPoolReconcile',
    'TestSandboxWarmPoolRollout',
    'TestSandboxWarmPoolStuckGC',
    'TestFindWarmPoolsForTemplate',
    'TestApplySandboxSecureDefaults',
    'TestSandboxWarmPoolPodSpecNormalization',
    'TestSandboxWarmPoolDNSPolicyTemplateUpdate',
    'TestReconcilePool_TemplateUpdate_DNSPolicy',
    'TestSandboxWarmPoolOrphanVetting',
    'TestSlowStartBatch',
    'TestReconcilePool_EvictionOverride',
    'TestReconcilePool_TemplateUpdateRecreate',
    'TestSandboxWarmPoolRecreateTriggers',
    'TestSandboxWarmPoolRecreateNonTriggers',
    'TestSandboxTemplateBlueprintHash',
    'TestCompareSandboxBlueprint',
    'TestCompareSandboxBlueprintAllFields',
  ],
  'sandboxwarmpool_overcreation_test.go': [
    'TestSandboxWarmPoolOverCreation',
    'TestReconcilePool_NoOverCreationWithStaleCache',
    'TestReconcilePool_NoOverCreationConcurrent',
    'TestReconcilePool_TerminatingCountsAgainstTarget',
    'TestReconcilePool_UnschedulableStuckGC',
    'TestIsSandboxPodUnschedulable',
    'TestReconcilePool_ExcessDeleteNotFoundLowersExpectation',
    'TestReconcilePool_YoungNotReadyArmsGraceRequeue',
    'TestReconcilePool_QuietClusterSelfScheduledGraceEvaluation',
    'TestReconcilePool_ConfigurableGraceAndRecheck',
    'TestWarmPoolDefaults',
    'TestWarmPoolSandboxEventHandler_ObservesOwnedEvents',
  ],
  'warmpool_expectations_test.go': ['TestExpectations'],
  'sandboxtemplate_controller_test.go': [
    'TestSandboxTemplateReconcile',
    'TestSandboxTemplateReconcileNetworkPolicy',
  ],
  'queue/simple_sandbox_queue_test.go': ['TestSimpleSandboxQueue'],
};

/** Names our tests carry for behaviour beyond upstream (ADRs), never an upstream test. */
export const BEYOND_UPSTREAM: readonly string[] = ['TestSandboxClaimWarmEnv'];
