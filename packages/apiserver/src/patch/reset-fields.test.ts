import { describe, expect, it } from 'vitest';
import { pathToString } from './field-set.ts';
import { resetFieldsFor, type ResetFieldsOptions } from './reset-fields.ts';

const cases: { opts: ResetFieldsOptions; paths: string[] | undefined }[] = [
  { opts: { resource: 'pods' }, paths: ['.status'] },
  {
    opts: { resource: 'pods', subresource: 'status' },
    paths: ['.spec', '.metadata.deletionTimestamp', '.metadata.ownerReferences'],
  },
  { opts: { resource: 'services', subresource: 'status' }, paths: ['.spec'] },
  { opts: { resource: 'configmaps' }, paths: undefined },
  { opts: { resource: 'sandboxes', crdStatusSubresource: true }, paths: ['.status'] },
  {
    opts: { resource: 'sandboxes', crdStatusSubresource: true, subresource: 'status' },
    paths: ['.spec'],
  },
  { opts: { resource: 'sandboxes' }, paths: undefined },
];

describe('resetFieldsFor', () => {
  it.each(cases)('$opts', ({ opts, paths }) => {
    const set = resetFieldsFor(opts);
    expect(set?.paths().map(pathToString)).toEqual(paths);
  });
});
