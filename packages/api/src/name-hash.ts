// NameHash (spec §10, conventions): 32-bit FNV-1a over the UTF-8 bytes of a name, as 8 lowercase
// hex digits. It labels the objects that belong to a sandbox, pool or template, so it must match
// upstream's Go implementation bit for bit.
const FNV32_OFFSET_BASIS = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;
const encoder = new TextEncoder();

export function nameHash(name: string): string {
  let hash = FNV32_OFFSET_BASIS;
  for (const byte of encoder.encode(name)) {
    hash ^= byte;
    hash = Math.imul(hash, FNV32_PRIME) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
