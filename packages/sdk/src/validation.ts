// Client-side checks of names, labels, annotations and env vars, so a bad value fails before any
// request with a message naming the field and the rule (the Python SDK checks labels the same way).
import { InvalidArgumentError } from './errors.ts';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

export function checkDnsLabel(field: string, value: string): void {
  if (value.length > 63 || !DNS_LABEL.test(value))
    throw new InvalidArgumentError(
      `${field} "${value}" must be a DNS label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit`,
    );
}

export function checkDnsSubdomain(field: string, value: string): void {
  if (value.length > 253 || !DNS_SUBDOMAIN.test(value))
    throw new InvalidArgumentError(
      `${field} "${value}" must be a DNS subdomain: lowercase letters, digits, '-' and '.', at most 253 characters`,
    );
}

/** A label or annotation key: `[prefix/]name` (Kubernetes qualified name). */
export function checkQualifiedKey(field: string, key: string): void {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix === '' || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)))
    throw new InvalidArgumentError(
      `${field} key "${key}": the prefix before '/' must be a DNS subdomain such as example.com`,
    );
  if (name.length > 63 || !QUALIFIED_NAME.test(name))
    throw new InvalidArgumentError(
      `${field} key "${key}": the name must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`,
    );
}

export function checkLabels(field: string, labels: Readonly<Record<string, string>>): void {
  for (const [k, v] of Object.entries(labels)) {
    checkQualifiedKey(field, k);
    if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v))
      throw new InvalidArgumentError(
        `${field}["${k}"] value "${String(v)}" must be at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`,
      );
  }
}

export function checkAnnotations(field: string, values: Readonly<Record<string, string>>): void {
  for (const [k, v] of Object.entries(values)) {
    checkQualifiedKey(field, k);
    if (typeof v !== 'string')
      throw new InvalidArgumentError(`${field}["${k}"] must be a string, got ${typeof v}`);
  }
}

export function checkEnv(field: string, env: Readonly<Record<string, string>>): void {
  for (const [k, v] of Object.entries(env)) {
    if (!ENV_NAME.test(k) || k === '.' || k === '..' || k.startsWith('..'))
      throw new InvalidArgumentError(
        `${field} name "${k}" must match ^[-._a-zA-Z][-._a-zA-Z0-9]*$ and not be '.', '..' or start with '..'`,
      );
    if (typeof v !== 'string')
      throw new InvalidArgumentError(`${field}["${k}"] must be a string, got ${typeof v}`);
  }
}

/** A duration in ms that Kubernetes can hold as a time: a whole, positive number. */
export function checkTimeoutMs(field: string, value: number): void {
  if (!Number.isInteger(value) || value <= 0)
    throw new InvalidArgumentError(`${field} ${value} must be a whole number of milliseconds > 0`);
}

/** A TCP port: a whole number in 1-65535. */
export function checkPort(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > 65535)
    throw new InvalidArgumentError(`${field} ${value} must be a port in 1-65535`);
  return value;
}
