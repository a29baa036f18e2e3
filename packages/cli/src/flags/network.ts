// commander parsers for `up`'s Pod network flags: refused before anything starts, naming the flag.
import { InvalidArgumentError } from 'commander';

/** `--pod-cidr`: an IPv4 network such as 10.88.0.0/16, prefix 8 to 28 (room for Pods). */
export function parsePodCidr(text: string): string {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(text);
  const octetsOk = m !== null && m.slice(1, 5).every((o) => Number(o) <= 255);
  const prefix = m ? Number(m[5]) : -1;
  if (!octetsOk || prefix < 8 || prefix > 28)
    throw new InvalidArgumentError(
      `--pod-cidr must be an IPv4 network with a prefix from 8 to 28, such as 10.88.0.0/16; got ${text}`,
    );
  return text;
}

/** `--bridge`: a Linux interface name short enough to prefix veth names. */
export function parseBridgeName(text: string): string {
  if (!/^[a-z][a-z0-9]{1,9}$/.test(text))
    throw new InvalidArgumentError(
      `--bridge must be 2 to 10 lowercase letters or digits starting with a letter (it prefixes interface names of at most 15 characters), such as asb0; got ${text}`,
    );
  return text;
}
