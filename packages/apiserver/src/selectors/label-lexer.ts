// The lexer of kube's label-selector grammar (k8s.io/apimachinery/pkg/labels/selector.go).
// Lexer: byte-oriented like kube's; a NUL character ends the input as Go's read() does.

type Token =
  | 'error'
  | 'eos'
  | ')'
  | ','
  | '!'
  | '=='
  | '='
  | '>'
  | 'identifier'
  | 'in'
  | '<'
  | '!='
  | 'notin'
  | '(';

const STRING_TO_TOKEN: Readonly<Record<string, Token>> = {
  ')': ')',
  ',': ',',
  '!': '!',
  '==': '==',
  '=': '=',
  '>': '>',
  in: 'in',
  '<': '<',
  '!=': '!=',
  notin: 'notin',
  '(': '(',
};

function tokenOf(s: string): Token | undefined {
  return Object.prototype.hasOwnProperty.call(STRING_TO_TOKEN, s) ? STRING_TO_TOKEN[s] : undefined;
}

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isSpecialSymbol(ch: string): boolean {
  return '=!(),><'.includes(ch) && ch !== '';
}

export interface ScannedItem {
  tok: Token;
  literal: string;
}

export class Lexer {
  #pos = 0;
  constructor(private readonly s: string) {}

  /** '' stands for Go's 0 byte: end of input, or an actual NUL in the input. */
  #read(): string {
    if (this.#pos < this.s.length) {
      const ch = this.s[this.#pos] ?? '';
      this.#pos++;
      return ch === '\0' ? '' : ch;
    }
    return '';
  }

  #unread(): void {
    this.#pos--;
  }

  #scanIdOrKeyword(): ScannedItem {
    let buffer = '';
    for (;;) {
      const ch = this.#read();
      if (ch === '') break;
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        this.#unread();
        break;
      }
      buffer += ch;
    }
    const tok = tokenOf(buffer);
    return tok !== undefined ? { tok, literal: buffer } : { tok: 'identifier', literal: buffer };
  }

  #scanSpecialSymbol(): ScannedItem {
    let last: ScannedItem | undefined;
    let buffer = '';
    for (;;) {
      const ch = this.#read();
      if (ch === '') break;
      if (isSpecialSymbol(ch)) {
        buffer += ch;
        const tok = tokenOf(buffer);
        if (tok !== undefined) {
          last = { tok, literal: buffer };
        } else if (last !== undefined) {
          this.#unread();
          break;
        }
      } else {
        this.#unread();
        break;
      }
    }
    return last ?? { tok: 'error', literal: `error expected: keyword found '${buffer}'` };
  }

  lex(): ScannedItem {
    let ch = this.#read();
    while (isWhitespace(ch)) ch = this.#read();
    if (ch === '') return { tok: 'eos', literal: '' };
    this.#unread();
    return isSpecialSymbol(ch) ? this.#scanSpecialSymbol() : this.#scanIdOrKeyword();
  }
}
