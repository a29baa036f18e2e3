// The admission and audit flags every embedded-mode verb (`apiserver`, `start`, `up`) takes.
import type { Command } from 'commander';
import { POD_SECURITY_HELP, parsePodSecurity, type PodSecurityFlag } from './pod-security.ts';

/** What `withAdmissionFlags` adds to a verb's parsed options. */
export interface AdmissionFlags {
  podSecurity?: PodSecurityFlag;
  auditLog?: boolean;
}

/** Adds `--pod-security <level>` and `--no-audit-log` to `command`. */
export function withAdmissionFlags(command: Command): Command {
  return command
    .option('--pod-security <level>', POD_SECURITY_HELP, parsePodSecurity)
    .option(
      '--no-audit-log',
      'keep no audit log of writes (default: DIR/audit.log, rotated at 10 MiB)',
    );
}
