import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseBridgeName, parsePodCidr } from './network.ts';

describe('up network flags', () => {
  it('takes IPv4 CIDRs with room for Pods', () => {
    expect(parsePodCidr('10.88.0.0/16')).toBe('10.88.0.0/16');
    expect(parsePodCidr('192.168.7.0/24')).toBe('192.168.7.0/24');
  });

  it.each(['10.88.0.0', '10.88.0.0/29', '10.300.0.0/16', 'fd00::/64', 'x/16', '10.88.0.0/7'])(
    'refuses --pod-cidr %s naming the flag and an example',
    (text) => {
      expect(() => parsePodCidr(text)).toThrow(InvalidArgumentError);
      expect(() => parsePodCidr(text)).toThrow(/--pod-cidr .*such as 10\.88\.0\.0\/16; got/);
    },
  );

  it('takes short interface names and refuses the rest', () => {
    expect(parseBridgeName('asb0')).toBe('asb0');
    for (const bad of ['a', 'Asb0', '0asb', 'asb-0', 'averylongbridge'])
      expect(() => parseBridgeName(bad)).toThrow(/--bridge must be 2 to 10 lowercase/);
  });
});
