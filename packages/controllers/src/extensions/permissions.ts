// What each reconciler needs from the API server, declared beside it so a narrowed role (and the
// chart's RBAC) can be generated from one place instead of read out of the code.

export interface Permission {
  /** API group ('' = core). */
  group: string;
  /** Resource plural, with `/subresource` when it is one. */
  resource: string;
  verbs: readonly string[];
}

export const READ = ['get', 'list', 'watch'] as const;
