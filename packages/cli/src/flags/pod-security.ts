// `--pod-security <level>` of the embedded mode (`apiserver`, `start`, `up`): the Pod Security
// level enforced, warned and audited in namespaces without pod-security.kubernetes.io labels
// (ADR 0026). The levels are spelled here, not imported, so --help loads no API server.
import { InvalidArgumentError } from 'commander';

export const POD_SECURITY_LEVELS = ['privileged', 'baseline', 'restricted'] as const;
export type PodSecurityFlag = (typeof POD_SECURITY_LEVELS)[number];

/** The help text of the flag. */
export const POD_SECURITY_HELP =
  'Pod Security level for namespaces without pod-security.kubernetes.io labels: privileged, baseline or restricted (default: baseline)';

function isLevel(text: string): text is PodSecurityFlag {
  return (POD_SECURITY_LEVELS as readonly string[]).includes(text);
}

/** commander's parser for `--pod-security <level>`. */
export function parsePodSecurity(text: string): PodSecurityFlag {
  if (isLevel(text)) return text;
  throw new InvalidArgumentError(
    `--pod-security must be one of ${POD_SECURITY_LEVELS.join(', ')}, got ${JSON.stringify(text)}`,
  );
}
