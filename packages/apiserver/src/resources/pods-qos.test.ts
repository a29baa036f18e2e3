import { describe, expect, it } from 'vitest';
import { computePodQos, quantityNanos } from './pods-qos.ts';

describe('quantityNanos', () => {
  it.each([
    ['1', 1_000_000_000n],
    ['500m', 500_000_000n],
    ['0.5', 500_000_000n],
    ['1Ki', 1024n * 1_000_000_000n],
    ['1Gi', 1024n ** 3n * 1_000_000_000n],
    ['1G', 10n ** 18n],
    ['1e3', 1000n * 1_000_000_000n],
    ['1.5E-3', 1_500_000n],
    ['-2', -2_000_000_000n],
    ['1n', 1n],
    ['0.1n', 1n],
    ['.5', 500_000_000n],
  ])('%s', (text, nanos) => expect(quantityNanos(text)).toBe(nanos));

  it('compares equal quantities written differently as equal', () => {
    expect(quantityNanos('1024Mi')).toBe(quantityNanos('1Gi'));
    expect(quantityNanos('0.5')).toBe(quantityNanos('500m'));
  });

  it.each(['', 'lots', '1.2.3', '1Kb', '--1'])('rejects %j', (text) =>
    expect(quantityNanos(text)).toBeUndefined(),
  );
});

const container = (resources?: Record<string, unknown>) => ({
  name: 'c',
  image: 'x',
  ...(resources ? { resources } : {}),
});

describe('computePodQos', () => {
  it('is BestEffort without cpu or memory', () => {
    expect(computePodQos({ containers: [container()] })).toBe('BestEffort');
    expect(
      computePodQos({ containers: [container({ requests: { 'ephemeral-storage': '1Gi' } })] }),
    ).toBe('BestEffort');
    expect(computePodQos({ containers: [container({ requests: { cpu: '0' } })] })).toBe(
      'BestEffort',
    );
  });

  it('is Guaranteed when limits name cpu and memory and requests equal them (or are defaulted)', () => {
    const limits = { cpu: '1', memory: '1Gi' };
    expect(computePodQos({ containers: [container({ limits })] })).toBe('Guaranteed');
    expect(
      computePodQos({
        containers: [container({ requests: { cpu: '1000m', memory: '1024Mi' }, limits })],
      }),
    ).toBe('Guaranteed');
  });

  it('is Burstable when any container falls short of Guaranteed', () => {
    const limits = { cpu: '1', memory: '1Gi' };
    expect(computePodQos({ containers: [container({ limits }), container()] })).toBe('Burstable');
    expect(computePodQos({ containers: [container({ limits: { cpu: '1' } })] })).toBe('Burstable');
    expect(computePodQos({ containers: [container({ requests: { cpu: '500m' }, limits })] })).toBe(
      'Burstable',
    );
    expect(
      computePodQos({
        initContainers: [container({ requests: { memory: '1Mi' } })],
        containers: [container()],
      }),
    ).toBe('Burstable');
  });

  it('uses pod-level resources instead of the containers when set', () => {
    const containers = [container({ requests: { cpu: '1' } })];
    expect(computePodQos({ resources: { limits: { cpu: '1', memory: '1Gi' } }, containers })).toBe(
      'Guaranteed',
    );
    expect(computePodQos({ resources: { requests: { cpu: '1' } }, containers })).toBe('Burstable');
    expect(computePodQos({ resources: {}, containers })).toBe('BestEffort');
  });
});
