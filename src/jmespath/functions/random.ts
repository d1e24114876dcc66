/**
 * random(pattern): a string matching a regular expression, as goregen generates it upstream, but
 * driven by JmesContext.random (a seeded PRNG by default) so runs are reproducible. Supports the
 * constructs such patterns use: literals, escapes (\d \w \s and their negations), classes with
 * ranges and negation, `.`, groups (capturing, non-capturing, named), alternation and quantifiers.
 * Unbounded repetition is capped at 10, a choice that only changes lengths, never validity.
 */
import { failure, seededRandom, JmesFailure, type JmesRandom } from '../types.js';
import { compileGoRegexp } from './re2.js';
import { expectString, type FunctionSpec } from './registry.js';

type Node =
  | { t: 'lit'; ch: string }
  | { t: 'set'; chars: string[] }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; options: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number };

const UNBOUNDED = 10;
const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
const DIGITS = Array.from('0123456789');
const WORD = Array.from('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_');
const SPACE = Array.from('\t\n\f\r ');

function complement(chars: string[]): string[] {
  const s = new Set(chars);
  return PRINTABLE.filter((c) => !s.has(c));
}

class Parser {
  i = 0;
  constructor(readonly p: string) {}

  parseAlt(): Node {
    const options = [this.parseSeq()];
    while (this.p[this.i] === '|') {
      this.i++;
      options.push(this.parseSeq());
    }
    return options.length === 1 ? options[0]! : { t: 'alt', options };
  }

  parseSeq(): Node {
    const items: Node[] = [];
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      let atom = this.parseAtom();
      if (atom === undefined) continue;
      atom = this.parseQuantifier(atom);
      items.push(atom);
    }
    return { t: 'seq', items };
  }

  parseQuantifier(atom: Node): Node {
    const c = this.p[this.i];
    let min: number;
    let max: number;
    if (c === '*') [min, max] = [0, UNBOUNDED];
    else if (c === '+') [min, max] = [1, UNBOUNDED];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i));
      if (!m) return atom;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? min + UNBOUNDED : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (this.p[this.i] === '?') this.i++;
    return this.parseQuantifier({ t: 'rep', node: atom, min, max });
  }

  parseEscape(inClass: boolean): string[] {
    const c = this.p[this.i + 1];
    this.i += 2;
    switch (c) {
      case 'd':
        return DIGITS;
      case 'D':
        return complement(DIGITS);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return SPACE;
      case 'S':
        return complement(SPACE);
      case 'n':
        return ['\n'];
      case 't':
        return ['\t'];
      case 'r':
        return ['\r'];
      case 'b':
      case 'B':
      case 'A':
      case 'z':
        if (inClass) throw new Error(`unsupported escape \\${c} in class`);
        return [];
      default:
        return [c!];
    }
  }

  parseAtom(): Node | undefined {
    const c = this.p[this.i]!;
    if (c === '(') {
      this.i++;
      if (this.p[this.i] === '?') {
        const m = /^\?(?::|P?<\w+>)/.exec(this.p.slice(this.i));
        if (!m) throw new Error('unsupported group syntax');
        this.i += m[0].length;
      }
      const inner = this.parseAlt();
      if (this.p[this.i] !== ')') throw new Error('missing )');
      this.i++;
      return inner;
    }
    if (c === '[') return this.parseClass();
    if (c === '.') {
      this.i++;
      return { t: 'set', chars: PRINTABLE };
    }
    if (c === '^' || c === '$') {
      this.i++;
      return undefined;
    }
    if (c === '\\') {
      const chars = this.parseEscape(false);
      return chars.length === 0 ? undefined : chars.length === 1 ? { t: 'lit', ch: chars[0]! } : { t: 'set', chars };
    }
    this.i++;
    return { t: 'lit', ch: c };
  }

  parseClass(): Node {
    this.i++;
    let negate = false;
    if (this.p[this.i] === '^') {
      negate = true;
      this.i++;
    }
    const chars: string[] = [];
    let first = true;
    while (this.i < this.p.length && (this.p[this.i] !== ']' || first)) {
      first = false;
      let lo: string[];
      if (this.p.startsWith('[:', this.i)) {
        const end = this.p.indexOf(':]', this.i);
        const name = this.p.slice(this.i + 2, end);
        this.i = end + 2;
        lo = name === 'digit' ? DIGITS : name === 'alpha' ? WORD.filter((x) => /[A-Za-z]/.test(x)) : name === 'alnum' ? WORD.filter((x) => x !== '_') : name === 'lower' ? WORD.filter((x) => /[a-z]/.test(x)) : name === 'upper' ? WORD.filter((x) => /[A-Z]/.test(x)) : PRINTABLE;
        chars.push(...lo);
        continue;
      }
      lo = this.p[this.i] === '\\' ? this.parseEscape(true) : [this.p[this.i++]!];
      if (lo.length === 1 && this.p[this.i] === '-' && this.p[this.i + 1] !== ']' && this.i + 1 < this.p.length) {
        this.i++;
        const hi = this.p[this.i] === '\\' ? this.parseEscape(true) : [this.p[this.i++]!];
        const a = lo[0]!.codePointAt(0)!;
        const b = hi[0]!.codePointAt(0)!;
        for (let cp = a; cp <= b; cp++) chars.push(String.fromCodePoint(cp));
      } else chars.push(...lo);
    }
    this.i++;
    return { t: 'set', chars: negate ? complement(chars) : chars };
  }
}

function pick<T>(rng: JmesRandom, items: readonly T[]): T {
  return items[Math.floor(rng.next() * items.length)]!;
}

function generate(node: Node, rng: JmesRandom): string {
  switch (node.t) {
    case 'lit':
      return node.ch;
    case 'set':
      return node.chars.length === 0 ? '' : pick(rng, node.chars);
    case 'seq':
      return node.items.map((n) => generate(n, rng)).join('');
    case 'alt':
      return generate(pick(rng, node.options), rng);
    case 'rep': {
      const n = node.min + Math.floor(rng.next() * (node.max - node.min + 1));
      let out = '';
      for (let k = 0; k < n; k++) out += generate(node.node, rng);
      return out;
    }
  }
}

const fallbackRandom = seededRandom(0x6b79766e);

export const RANDOM_FUNCTIONS: FunctionSpec[] = [
  {
    name: 'random',
    args: [['string']],
    handler: (args, env) => {
      const pattern = expectString('random', args, 0);
      if (pattern instanceof JmesFailure) return pattern;
      if (pattern === '') return failure('Runtime', 'no pattern provided');
      const re = compileGoRegexp(pattern);
      if (typeof re === 'string') return failure('Runtime', re);
      let ast: Node;
      try {
        const parser = new Parser(pattern);
        ast = parser.parseAlt();
        if (parser.i !== pattern.length) throw new Error('unbalanced )');
      } catch (e) {
        return failure('Unsupported', `JMESPath function 'random': cannot generate from ${JSON.stringify(pattern)}: ${e instanceof Error ? e.message : String(e)}`);
      }
      return generate(ast, env.ctx.random ?? fallbackRandom);
    },
  },
];
