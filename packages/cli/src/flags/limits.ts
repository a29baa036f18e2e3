// The serving limits of the embedded API server, under kube-apiserver's flag names and defaults:
// --request-timeout (a Go duration), --max-requests-inflight and --max-mutating-requests-inflight.
// 0 turns each off, as in kube. The defaults are spelled here, not imported, so --help loads no
// API server; @agent-sandbox/apiserver applies the same ones when a flag is absent.
import { InvalidArgumentError } from 'commander';
import { parseDurationMs, parseInt10 } from './go-numbers.ts';

export const LIMIT_FLAG_HELP = {
  requestTimeout:
    'how long a request that is not long-running (watch, exec, logs...) may take before it is answered 504 Timeout; 0 turns it off (default: 60s)',
  maxRequestsInflight:
    'read requests served at once; more are answered 429 with Retry-After; long-running ones do not count; 0: no limit (default: 400)',
  maxMutatingRequestsInflight:
    'write requests served at once; more are answered 429 with Retry-After; 0: no limit (default: 200)',
} as const;

function invalid(flag: string, why: string, text: string): InvalidArgumentError {
  return new InvalidArgumentError(`--${flag} ${why}, got ${JSON.stringify(text)}`);
}

/** `--request-timeout <duration>` in milliseconds: a Go duration ≥ 0 (60s, 1m30s, 500ms). */
export function parseRequestTimeout(text: string): number {
  let ms: number;
  try {
    ms = parseDurationMs(text);
  } catch {
    throw invalid('request-timeout', 'must be a duration such as 60s, 2m or 500ms', text);
  }
  if (ms < 0) throw invalid('request-timeout', 'must not be negative (0 turns it off)', text);
  return ms;
}

/** A parser for an in-flight limit flag: a whole number ≥ 0. */
function inflightLimit(flag: string): (text: string) => number {
  return (text) => {
    let n: number;
    try {
      n = parseInt10(text);
    } catch {
      throw invalid(flag, 'must be a whole number ≥ 0 (0: no limit)', text);
    }
    if (n < 0) throw invalid(flag, 'must not be negative (0: no limit)', text);
    return n;
  };
}

export const parseMaxRequestsInflight = inflightLimit('max-requests-inflight');
export const parseMaxMutatingRequestsInflight = inflightLimit('max-mutating-requests-inflight');
