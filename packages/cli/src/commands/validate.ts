// `agent-sandbox validate -f FILE|DIR|-`: checks manifests the way kube-apiserver would admit
// them, one line per problem, exit 0 only when every document is valid.
import { formatFieldIssue } from '@agent-sandbox/crd-schema';
import { validateObject } from '@agent-sandbox/api';
import type { CommandIO } from '../io.ts';
import { readManifests, type ManifestDocument } from '../manifest-reader.ts';
import { findPlaceholders, parseAssignments, substitute } from '../placeholders.ts';

export interface ValidateCommandOptions {
  filename: string[];
  set: string[];
  partial: boolean;
  allowedLabelDomains?: string[];
}

export interface DocumentReport {
  source: string;
  ref: string;
  problems: string[];
  warnings: string[];
}

export function validateDocument(
  doc: ManifestDocument,
  values: ReadonlyMap<string, string>,
  options: Pick<ValidateCommandOptions, 'partial' | 'allowedLabelDomains'>,
): DocumentReport {
  if (doc.error !== undefined) {
    return {
      source: doc.source,
      ref: '<unparsed>',
      problems: [`invalid YAML: ${doc.error}`],
      warnings: [],
    };
  }
  const value = substitute(doc.value, values);
  const result = validateObject(value, {
    partial: options.partial,
    ...(options.allowedLabelDomains ? { allowedLabelDomains: options.allowedLabelDomains } : {}),
  });
  const problems = findPlaceholders(value).map(
    ({ field, name, text }) =>
      `${field}: placeholder ${text} is not substituted: pass --set ${name}=<value>`,
  );
  problems.push(...result.issues.map(formatFieldIssue));
  return { source: doc.source, ref: result.ref, problems, warnings: result.warnings };
}

export function runValidate(options: ValidateCommandOptions, io: CommandIO): number {
  const values = parseAssignments(options.set);
  const documents = options.filename.flatMap((f) => readManifests(f, io.stdin));
  if (documents.length === 0) {
    io.stderr(`error: no manifests found in ${options.filename.join(', ')}\n`);
    return 1;
  }
  let invalidCount = 0;
  for (const doc of documents) {
    const report = validateDocument(doc, values, options);
    for (const w of report.warnings) io.stderr(`${report.source} ${report.ref}: warning: ${w}\n`);
    if (report.problems.length === 0) continue;
    invalidCount += 1;
    for (const p of report.problems) io.stdout(`${report.source} ${report.ref}: ${p}\n`);
  }
  const valid = documents.length - invalidCount;
  io.stderr(`${documents.length} document(s): ${valid} valid, ${invalidCount} invalid\n`);
  return invalidCount === 0 ? 0 : 1;
}
