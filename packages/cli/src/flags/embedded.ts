// The admission, audit and serving-limit flags every embedded-mode verb (`apiserver`, `start`,
// `up`) takes.
import type { Command } from 'commander';
import {
  LIMIT_FLAG_HELP,
  parseMaxMutatingRequestsInflight,
  parseMaxRequestsInflight,
  parseRequestTimeout,
} from './limits.ts';
import { POD_SECURITY_HELP, parsePodSecurity, type PodSecurityFlag } from './pod-security.ts';

/** What `withEmbeddedFlags` adds to a verb's parsed options. */
export interface EmbeddedFlags {
  podSecurity?: PodSecurityFlag;
  auditLog?: boolean;
  /** --request-timeout, in milliseconds. */
  requestTimeout?: number;
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
}

/**
 * Adds `--pod-security <level>`, `--no-audit-log` and kube-apiserver's limit flags
 * (`--request-timeout`, `--max-requests-inflight`, `--max-mutating-requests-inflight`).
 */
export function withEmbeddedFlags(command: Command): Command {
  return command
    .option('--pod-security <level>', POD_SECURITY_HELP, parsePodSecurity)
    .option(
      '--no-audit-log',
      'keep no audit log of writes (default: DIR/audit.log, rotated at 10 MiB)',
    )
    .option('--request-timeout <duration>', LIMIT_FLAG_HELP.requestTimeout, parseRequestTimeout)
    .option(
      '--max-requests-inflight <n>',
      LIMIT_FLAG_HELP.maxRequestsInflight,
      parseMaxRequestsInflight,
    )
    .option(
      '--max-mutating-requests-inflight <n>',
      LIMIT_FLAG_HELP.maxMutatingRequestsInflight,
      parseMaxMutatingRequestsInflight,
    );
}
