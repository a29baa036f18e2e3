// Query options shared by the verbs (semantics doc §3.2, §3.5).
import { statusError, type ApiError } from '../errors.ts';
import { isTrueParam } from './request-info.ts';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** 422 for a bad query option, with the options kind as the "object" (semantics doc §3.2). */
export function invalidOptions(
  kind: string,
  field: string,
  message: string,
  causeType = 'FieldValueNotSupported',
): ApiError {
  return statusError(422, 'Invalid', `${kind}.meta.k8s.io "" is invalid: ${field}: ${message}`, {
    group: 'meta.k8s.io',
    kind,
    causes: [{ reason: causeType, message, field }],
  });
}

/** kube's ValidateFieldManager: at most 128 bytes, printable characters only. */
function checkFieldManager(optionsKind: string, manager: string): void {
  if (Buffer.byteLength(manager) > 128)
    throw invalidOptions(
      optionsKind,
      'fieldManager',
      'Too long: may not be more than 128 bytes',
      'FieldValueTooLong',
    );
  let position = 0;
  for (const ch of manager) {
    const code = ch.codePointAt(0) ?? 0;
    if (/[\p{C}\p{Zl}\p{Zp}]/u.test(ch) || (/\s/.test(ch) && ch !== ' ')) {
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      throw invalidOptions(
        optionsKind,
        'fieldManager',
        `Invalid value: ${JSON.stringify(manager)}: invalid character U+${hex} (at position ${position})`,
        'FieldValueInvalid',
      );
    }
    position += Buffer.byteLength(ch);
  }
}

/** kube's dryRun rule for every options kind: each value "All"; true when there is one. */
export function checkDryRun(optionsKind: string, values: readonly unknown[]): boolean {
  if (values.some((v) => v !== 'All'))
    throw invalidOptions(
      optionsKind,
      'dryRun',
      `Unsupported value: ${JSON.stringify(values)}: supported values: "All"`,
    );
  return values.length > 0;
}

export interface WriteOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  fieldManager?: string;
}

export function writeOptions(
  url: URL,
  optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
): WriteOptions {
  const dryRun = checkDryRun(optionsKind, url.searchParams.getAll('dryRun'));
  const fv = url.searchParams.get('fieldValidation') ?? 'Warn';
  if (!['Ignore', 'Warn', 'Strict'].includes(fv)) {
    throw invalidOptions(
      optionsKind,
      'fieldValidation',
      `Unsupported value: "${fv}": supported values: "", "Ignore", "Strict", "Warn"`,
    );
  }
  const out: WriteOptions = {
    dryRun,
    fieldValidation: fv as FieldValidation,
  };
  const manager = url.searchParams.get('fieldManager');
  if (manager !== null) {
    checkFieldManager(optionsKind, manager);
    out.fieldManager = manager;
  }
  return out;
}

/** fieldManager, else the User-Agent up to its first '/' (§2 managedFields). */
export function managerName(opts: WriteOptions, req: Request): string {
  if (opts.fieldManager) return opts.fieldManager;
  const agent = req.headers.get('user-agent') ?? '';
  // eslint-disable-next-line no-control-regex
  return (agent.split('/')[0] ?? '').replace(/[\x00-\x1f\x7f]/g, '').slice(0, 128);
}

export { isTrueParam };
