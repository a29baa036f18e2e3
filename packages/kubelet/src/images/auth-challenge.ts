// `WWW-Authenticate` challenges of registries (§5.3): pure.

export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
}

/** Parses `Bearer realm="...",service="...",scope="a:b:pull,push"` (quoted values may hold commas). */
export function parseChallenge(header: string): AuthChallenge | undefined {
  const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  const re = /([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))\s*,?/g;
  for (let p = re.exec(m[2] ?? ''); p; p = re.exec(m[2] ?? ''))
    params[(p[1] as string).toLowerCase()] =
      p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : (p[3] ?? '');
  return { scheme: (m[1] as string).toLowerCase(), params };
}
