// go-yaml reads its input as UTF-8 and stops at the first byte that cannot be, before parsing
// anything; kube-apiserver answers 400 with that reader's words. JavaScript's decoder would put
// U+FFFD there instead and parse on, so a YAML body is checked first, the way go-yaml's reader
// checks it (octet widths from the leading byte, then 10xxxxxx continuations).

function width(lead: number): number {
  if ((lead & 0x80) === 0x00) return 1;
  if ((lead & 0xe0) === 0xc0) return 2;
  if ((lead & 0xf0) === 0xe0) return 3;
  if ((lead & 0xf8) === 0xf0) return 4;
  return 0;
}

/** go-yaml's complaint about the first byte of `bytes` that is no UTF-8, or undefined. */
export function yamlUtf8Error(bytes: Uint8Array): string | undefined {
  for (let i = 0; i < bytes.length;) {
    const w = width(bytes[i] ?? 0);
    if (w === 0) return 'yaml: invalid leading UTF-8 octet';
    if (i + w > bytes.length) return 'yaml: incomplete UTF-8 octet sequence';
    for (let k = 1; k < w; k++)
      if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return 'yaml: invalid trailing UTF-8 octet';
    i += w;
  }
  return undefined;
}
