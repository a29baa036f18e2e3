// Cases where the embedded server knowingly differs from kube-apiserver, each with its reason.
// The suite fails when a listed difference disappears, so this list stays true.
export const KNOWN_DIFFERENCES: Record<string, string> = {
  'validation: a v1alpha1 merge patch of replicas resumes a Suspended Sandbox':
    'an update through v1alpha1 of a Sandbox written as v1beta1: kube-apiserver converts every ' +
    "manager's managedFields to v1alpha1 and back, so the v1beta1 manager loses f:operatingMode " +
    '(v1alpha1 has no such field), and it hands the conversion webhook the object without ' +
    'metadata.resourceVersion, so the v1alpha1-sandbox-state annotation has none; the embedded ' +
    'server keeps both.',
  'hostile: a body nested 5000 objects deep':
    "kube's JSON decoder accepts 10000 levels, so it answers this body's missing name (422); the " +
    'embedded server refuses a body nested more than 1000 levels with 400 before its object ' +
    'pipeline, which recurses (clone, defaulting, managed fields), can overflow its stack. Both ' +
    'are client errors (4xx).',
};
