// Cases where the embedded server knowingly differs from kube-apiserver, each with its reason.
// The suite fails when a listed difference disappears, so this list stays true.
export const KNOWN_DIFFERENCES: Record<string, string> = {};
