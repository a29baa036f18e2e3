import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../objects.ts';
import {
  defaultEndpointSlice,
  validateEndpointSlice,
  withNullLists,
} from './endpointslice-strategy.ts';

const slice = (rest: Record<string, unknown>): KubeObject => ({ metadata: { name: 's' }, ...rest });
const messages = (obj: KubeObject, old?: KubeObject) =>
  validateEndpointSlice(obj, old).map((i) => `${i.field}: ${i.message}`);

describe('EndpointSlice strategy', () => {
  it('defaults port name and protocol and endpoint conditions; reads show null lists', () => {
    const obj = slice({
      addressType: 'IPv4',
      ports: [{ port: 80 }],
      endpoints: [{ addresses: ['10.0.0.1'] }],
    });
    defaultEndpointSlice(obj);
    expect(obj['ports']).toEqual([{ port: 80, name: '', protocol: 'TCP' }]);
    expect(obj['endpoints']).toEqual([{ addresses: ['10.0.0.1'], conditions: {} }]);
    expect(withNullLists(slice({ addressType: 'IPv4' }))).toMatchObject({
      endpoints: null,
      ports: null,
    });
  });

  it('accepts valid IPv6 and FQDN slices', () => {
    expect(
      messages(slice({ addressType: 'IPv6', endpoints: [{ addresses: ['fd00::1'] }] })),
    ).toEqual([]);
    expect(
      messages(slice({ addressType: 'FQDN', endpoints: [{ addresses: ['db.example.com'] }] })),
    ).toEqual([]);
  });

  it('names the field and limit for too many items, and an address of the other family', () => {
    const many = Array.from({ length: 101 }, (_, i) => `10.0.0.${i % 250}`);
    expect(messages(slice({ addressType: 'IPv4', endpoints: [{ addresses: many }] }))).toEqual([
      'endpoints[0].addresses: Too many: 101: must have at most 100 items',
    ]);
    expect(
      messages(slice({ addressType: 'IPv6', endpoints: [{ addresses: ['10.0.0.1'] }] })),
    ).toEqual(['endpoints[0].addresses: Invalid value: "10.0.0.1": must be an IPv6 address']);
  });

  it('keeps addressType immutable', () => {
    expect(messages(slice({ addressType: 'IPv6' }), slice({ addressType: 'IPv4' }))).toEqual([
      'addressType: Invalid value: "IPv6": field is immutable',
    ]);
  });
});
