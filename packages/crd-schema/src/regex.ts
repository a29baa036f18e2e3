// Go RE2 patterns (what `pattern` and CEL regex functions use in kube-apiserver) as JavaScript
// RegExps. The syntaxes agree on what CRDs use in practice (anchors, classes, quantifiers,
// groups); this translates the RE2-only spellings we meet and rejects what RE2 itself rejects.
import { SchemaError } from './errors.ts';

/** RE2's ASCII classes (https://github.com/google/re2/wiki/Syntax). */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

const RE2_SPACE = '\\t\\n\\f\\r ';

/** One pass over the pattern, aware of escapes and character classes. */
function translate(src: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src.charAt(i);
    if (c === '\\') {
      const n = src.charAt(i + 1);
      i++;
      if (!inClass && n === 'A') out += '^';
      else if (!inClass && n === 'z') out += '$';
      else if (n === 's') out += inClass ? RE2_SPACE : `[${RE2_SPACE}]`;
      else if (n === 'S' && !inClass) out += `[^${RE2_SPACE}]`;
      else out += `\\${n}`;
      continue;
    }
    if (!inClass && c === '[') {
      inClass = true;
      out += c;
      if (src.charAt(i + 1) === '^') {
        out += '^';
        i++;
      }
      if (src.charAt(i + 1) === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (inClass && c === '[' && src.charAt(i + 1) === ':') {
      const m = /^\[:([a-z]+):\]/.exec(src.slice(i));
      const cls = m ? POSIX_CLASSES[m[1] ?? ''] : undefined;
      if (m && cls !== undefined) {
        out += cls;
        i += m[0].length - 1;
        continue;
      }
    }
    if (inClass && c === ']') inClass = false;
    out += c;
  }
  return out;
}

/**
 * Translate an RE2 pattern: a leading `(?flags)` group becomes RegExp flags (i, s, m), `\A` and
 * `\z` become `^` and `$` (JS anchors without the m flag mean the same), `[[:name:]]` classes
 * are expanded, and RE2's `\s` (ASCII whitespace only) is spelled out. Lookaround and
 * backreferences are not RE2 and are refused, as kube refuses them.
 */
export function compileRE2(pattern: string, where: string): RegExp {
  const fail = (why: string, cause?: unknown): never => {
    throw new SchemaError('InvalidPattern', `pattern at ${where || '<root>'} ${why}: ${pattern}`, {
      cause,
      paths: [where],
    });
  };
  if (/\(\?[=!<]|\\[1-9]/.test(pattern))
    fail('uses lookaround or backreferences, which RE2 does not support');
  let source = pattern;
  let flags = '';
  const leading = /^\(\?([ims]+)\)/.exec(source);
  if (leading) {
    flags = [...new Set(leading[1])].join('');
    source = source.slice(leading[0].length);
  }
  source = translate(source);
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    // `u` rejects identity escapes such as `\-` or `\/` outside classes, which RE2 accepts.
    try {
      return new RegExp(source, flags);
    } catch (err: unknown) {
      return fail('does not compile', err);
    }
  }
}
