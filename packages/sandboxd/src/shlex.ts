// POSIX-mode shlex.split (Python's shlex with posix=True, comments off), which the legacy
// /execute uses to turn a command string into argv without a shell (dataplane §5).

export class ShlexError extends Error {}

const WHITESPACE = new Set([' ', '\t', '\r', '\n']);

export function shlexSplit(input: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < input.length; i++) {
    const c = input.charAt(i);
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < input.length && ['"', '\\'].includes(input.charAt(i + 1))) {
        word += input.charAt(++i);
      } else if (c === '\\' && i + 1 >= input.length) throw new ShlexError('No closing quotation');
      else word += c;
      continue;
    }
    if (WHITESPACE.has(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (c === "'" || c === '"') quote = c;
    else if (c === '\\') {
      if (i + 1 >= input.length) throw new ShlexError('No escaped character');
      word += input.charAt(++i);
    } else word += c;
  }
  if (quote) throw new ShlexError('No closing quotation');
  if (inWord) words.push(word);
  return words;
}
