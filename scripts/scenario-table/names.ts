// Pure parsing for the scenario table: which upstream tests spec §21.3–21.4 names, and which
// upstream test names a test title claims to cover.

/** One §21.3–21.4 entry: an upstream test, or a test file the spec describes only by its bullets. */
export interface UpstreamEntry {
  name: string;
  section: '21.3' | '21.4';
}

const TEST_RUN = /Test[A-Za-z0-9_]+(?: \/ (?:Test)?_?[A-Z][A-Za-z0-9_]*)*/g;
const TEST_FILE = /`([A-Za-z0-9_/.*-]+_test\.go)`/g;

/**
 * Expands the spec's shorthand runs: `TestA / _B` is TestA_B (or TestX_B replacing TestX_Y's
 * last `_` part), `TestASuccess / Errors` is TestAErrors, `TestA / TestB` is two names.
 */
export function expandRun(run: string): string[] {
  const out: string[] = [];
  for (const part of run.split(' / ')) {
    const prev = out.at(-1);
    if (part.startsWith('Test') || prev === undefined) out.push(part);
    else if (part.startsWith('_')) {
      const cut = prev.lastIndexOf('_');
      out.push(`${cut > 0 ? prev.slice(0, cut) : prev}${part}`);
    } else out.push(prev.replace(/[A-Z][a-z0-9]*$/, part));
  }
  return out;
}

/** The text of `### <from>` up to the next `### ` heading that is not one of `within`. */
function sections(spec: string, heads: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const head of heads) {
    const start = spec.indexOf(`### ${head} `);
    if (start < 0) throw new Error(`spec has no "### ${head}" section`);
    const end = spec.indexOf('\n### ', start + 1);
    out.set(head, spec.slice(start, end < 0 ? undefined : end));
  }
  return out;
}

/** Every upstream test (and bullet-only test file) of §21.3–21.4, in the spec's order. */
export function upstreamEntries(spec: string): UpstreamEntry[] {
  const seen = new Set<string>();
  const out: UpstreamEntry[] = [];
  for (const [section, text] of sections(spec, ['21.3', '21.4']) as Map<
    UpstreamEntry['section'],
    string
  >) {
    const found: { at: number; name: string }[] = [];
    for (const m of text.matchAll(TEST_RUN)) {
      for (const name of expandRun(m[0])) found.push({ at: m.index, name });
    }
    // The heading names the section's main file; its tests are the Test… names.
    const body = text.indexOf('\n');
    for (const m of text.matchAll(TEST_FILE)) {
      if (m.index > body) found.push({ at: m.index, name: m[1] ?? '' });
    }
    const suite = text.indexOf('Adoption conflict suite');
    if (suite >= 0) found.push({ at: suite, name: 'Adoption conflict suite' });
    for (const { name } of found.sort((a, b) => a.at - b.at)) {
      if (seen.has(name)) continue;
      seen.add(name);
      out.push({ name, section });
    }
  }
  return out;
}

/**
 * The upstream names a test title claims: the `Test…` runs before its first ': ', the conflict
 * suite, or a bullet-only file as `<file>_test`.
 */
export function claimedNames(title: string): string[] {
  const colon = title.indexOf(': ');
  if (colon < 0) return [];
  const head = title.slice(0, colon);
  if (head === 'Adoption conflict suite') return [head];
  if (/^[a-z/_*]+_test$/.test(head)) return [`${head}.go`];
  return [...head.matchAll(TEST_RUN)].flatMap((m) => expandRun(m[0]));
}

const TITLE = /\bit(?:\.[a-z]+)*\(\s*(['"`])((?:\\.|(?!\1)[\s\S])*?)\1/g;

/** The titles of the `it(...)` calls in a test source file. */
export function testTitles(source: string): string[] {
  return [...source.matchAll(TITLE)].map((m) => m[2] ?? '');
}

/** The target a scenario runner file runs its scenarios on, if it is one. */
export function runnerTarget(source: string): 'embedded' | 'cluster' | undefined {
  const m = /\bdefine[A-Za-z]*\(\s*'(embedded|cluster)'\s*\)/.exec(source);
  return m?.[1] as 'embedded' | 'cluster' | undefined;
}
