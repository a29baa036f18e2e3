// A parser for Go flag-package command lines (ADR 0018): `--name value`, `--name=value`, one or
// two dashes, booleans as `--name` or `--name=false` (a bare boolean never takes the next
// argument), no positional arguments. Upstream's controller is a Go binary, so its flags keep
// Go's rules here; commander parses every other verb. A table of typed FlagSpecs gives typed
// values: `parseGoFlags(SPECS, argv).flags['kube-api-qps']` is a number, with no casts at the
// call site. Pure: argv in, values out, or a FlagError naming the flag, the reason and the default.
import { FlagError } from '../errors.ts';

export type FlagValue = boolean | number | string;

export interface FlagSpec<N extends string = string, T extends FlagValue = FlagValue> {
  name: N;
  default: NoInfer<T>;
  /** Parses (and validates) the text; throws a message without the flag name. */
  parse: (text: string) => T;
  help: string;
  /** Accepted for compatibility; a non-default value only logs a warning. */
  ignored?: string;
}

/** Declares one flag; T comes from `parse`, so the table's types follow the parsers. */
export function flag<const N extends string, T extends FlagValue>(
  spec: FlagSpec<N, T>,
): FlagSpec<N, T> {
  return spec;
}

/** The typed values of a flag table: flag name → the type its parser returns. */
export type FlagValues<S extends readonly FlagSpec[]> = {
  readonly [K in S[number] as K['name']]: ReturnType<K['parse']>;
};

export interface ParsedGoFlags<S extends readonly FlagSpec[]> {
  flags: FlagValues<S>;
  /** The same values by name (defaults included), for tables and help. */
  values: Map<string, FlagValue>;
  /** Flags given on the command line. */
  set: Set<S[number]['name']>;
  /** `--help` or `-h` was given. */
  help: boolean;
}

export interface GoFlagsOptions {
  /** Named in the unknown-flag message: `run <command> --help for the list`. */
  command: string;
}

/** Parses argv (flags only) against the table. */
export function parseGoFlags<const S extends readonly FlagSpec[]>(
  specs: S,
  argv: readonly string[],
  options: GoFlagsOptions,
): ParsedGoFlags<S> {
  const byName = new Map<string, FlagSpec>(specs.map((f) => [f.name, f]));
  const values = new Map<string, FlagValue>(specs.map((f) => [f.name, f.default]));
  const set = new Set<S[number]['name']>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      if (i + 1 < argv.length)
        throw new FlagError(`unexpected argument "${argv[i + 1]}": the command takes only flags`);
      break;
    }
    const m = /^--?([^-=][^=]*)(?:=(.*))?$/s.exec(arg);
    if (!m) throw new FlagError(`unexpected argument "${arg}": the command takes only flags`);
    const name = m[1] as string;
    if (name === 'help' || name === 'h') {
      help = true;
      continue;
    }
    const spec = byName.get(name);
    if (!spec)
      throw new FlagError(
        `unknown flag --${name}${suggest(specs, name)} (run ${options.command} --help for the list)`,
      );
    let text = m[2];
    if (text === undefined) {
      if (typeof spec.default === 'boolean') text = 'true';
      else {
        if (i + 1 >= argv.length)
          throw new FlagError(
            `flag --${name} needs a value (default ${showFlagValue(spec.default)})`,
          );
        text = argv[++i] as string;
      }
    }
    values.set(name, parseValue(spec, text));
    set.add(spec.name);
  }
  // Every name in the table has a value of its parser's type, which is what FlagValues says.
  const flags = Object.fromEntries(values) as FlagValues<S>;
  return { flags, values, set, help };
}

function parseValue(spec: FlagSpec, text: string): FlagValue {
  try {
    return spec.parse(text);
  } catch (err: unknown) {
    const why = err instanceof Error ? err.message : String(err);
    throw new FlagError(
      `invalid value "${text}" for flag --${spec.name}: ${why} (default ${showFlagValue(spec.default)})`,
      { cause: err },
    );
  }
}

/** The warnings for ignored flags given a non-default value. */
export function ignoredFlagWarnings(
  specs: readonly FlagSpec[],
  values: ReadonlyMap<string, FlagValue>,
  set: ReadonlySet<string>,
): string[] {
  return specs
    .filter((s) => s.ignored && set.has(s.name) && values.get(s.name) !== s.default)
    .map((s) => `--${s.name} is accepted for compatibility but ignored (${s.ignored})`);
}

export function showFlagValue(v: FlagValue): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

/** One help line per flag, with its default and whether it is ignored. */
export function goFlagsHelp(specs: readonly FlagSpec[]): string[] {
  return specs.map((f) => {
    const head = `  --${f.name}${typeof f.default === 'boolean' ? '' : ' <value>'}`;
    const note = f.ignored ? ` [ignored: ${f.ignored}]` : '';
    return `${head.padEnd(56)} ${f.help} (default ${showFlagValue(f.default)})${note}`;
  });
}

function suggest(specs: readonly FlagSpec[], name: string): string {
  const close = specs
    .map((f) => f.name)
    .find((n) => n.includes(name) || name.includes(n) || editDistance(n, name) <= 2);
  return close ? `; did you mean --${close}?` : '';
}

/** Levenshtein distance, for "did you mean". */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j] as number;
      row[j] = Math.min(
        (row[j] as number) + 1,
        (row[j - 1] as number) + 1,
        prev + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      prev = tmp;
    }
  }
  return row[b.length] as number;
}
