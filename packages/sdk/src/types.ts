// The SDK's public result types (no I/O, no imports: they are the published declarations).
/**
 * - `Pending`: created, not Ready yet (no Pod, Pod starting, claim waiting on a pool).
 * - `Running`: Ready; commands and files work.
 * - `Suspending` / `Suspended`: operatingMode Suspended; the Pod is going or gone, the disk stays.
 * - `Finished`: the Pod ended (Succeeded or Failed).
 * - `Failed`: the controller refused the claim for good (see `message`).
 * - `Terminating`: being deleted.
 */
export type SandboxState =
  'Pending' | 'Running' | 'Suspending' | 'Suspended' | 'Finished' | 'Failed' | 'Terminating';

export interface SandboxInfo {
  /** What connect() takes: the claim's name, or the Sandbox's for an `image` sandbox. */
  id: string;
  /** The Sandbox object's name (what the router calls X-Sandbox-ID); undefined until bound. */
  sandboxName: string | undefined;
  /** The SandboxClaim's name; undefined for an `image` sandbox. */
  claimName: string | undefined;
  namespace: string;
  state: SandboxState;
  /** The reason and message of the condition that decided `state`, when there is one. */
  reason: string | undefined;
  message: string | undefined;
  warmPool: string | undefined;
  template: string | undefined;
  image: string | undefined;
  labels: Record<string, string>;
  /** The user's annotations (the SDK's `metadata`), without the system ones. */
  metadata: Record<string, string>;
  podIPs: string[];
  createdAt: Date | undefined;
  /** When the sandbox expires (shutdownTime), if it does. */
  expiresAt: Date | undefined;
}
