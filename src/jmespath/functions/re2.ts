/**
 * Go `regexp` for Kyverno's regex functions. `@bufbuild/re2` (RE2JS) validates patterns with Go's
 * exact error messages and answers "does it match"; it exposes no submatch positions, so replacing
 * uses an equivalent JS RegExp obtained by translating the RE2 syntax (named groups, `\z`, `\A`,
 * POSIX classes, `\Q…\E`, Go's `\s`), with Go's ReplaceAll loop and `$name` template expansion.
 */
import { RE2JS } from '@bufbuild/re2';

export interface GoRegexp {
  readonly re2: RE2JS;
  /** A JS RegExp with the same matches (global, unicode), or the reason the pattern has none. */
  readonly js: RegExp | string;
  readonly names: ReadonlyMap<string, number>;
}

const cache = new Map<string, GoRegexp | string>();

/** Compiles a Go regexp; a string result is Go's error message (`error parsing regexp: ...`). */
export function compileGoRegexp(pattern: string): GoRegexp | string {
  let hit = cache.get(pattern);
  if (hit === undefined) {
    hit = build(pattern);
    if (cache.size > 512) cache.clear();
    cache.set(pattern, hit);
  }
  return hit;
}

function build(pattern: string): GoRegexp | string {
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(pattern);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  const names = re2.namedGroups();
  let js: RegExp | string;
  try {
    const t = translate(pattern);
    js = new RegExp(t.source, 'gu' + t.flags);
  } catch (e) {
    js = e instanceof Error ? e.message : String(e);
  }
  return { re2, js, names };
}

const POSIX: Record<string, string> = {
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

const JS_SYNTAX = new Set(Array.from('^$\\.*+?()[]{}|/'));

function escapeLiteral(ch: string): string {
  return JS_SYNTAX.has(ch) || ch === '-' ? '\\' + ch : ch;
}

/** Translates one escape sequence at `i` (pointing at the backslash); returns [js text, next index]. */
function translateEscape(p: string, i: number, inClass: boolean): [string, number] {
  const c = p[i + 1];
  if (c === undefined) throw new Error('trailing backslash');
  switch (c) {
    case 's':
      return [inClass ? '\\t\\n\\f\\r ' : '[\\t\\n\\f\\r ]', i + 2];
    case 'S':
      if (inClass) throw new Error('\\S inside a character class is not translatable');
      return ['[^\\t\\n\\f\\r ]', i + 2];
    case 'z':
      return ['(?![\\s\\S])', i + 2];
    case 'A':
      return ['(?<![\\s\\S])', i + 2];
    case 'x': {
      if (p[i + 2] === '{') {
        const end = p.indexOf('}', i + 3);
        return [`\\u{${p.slice(i + 3, end)}}`, end + 1];
      }
      return ['\\x' + p.slice(i + 2, i + 4), i + 4];
    }
    case 'p':
    case 'P': {
      if (p[i + 2] === '{') {
        const end = p.indexOf('}', i + 3);
        return [`\\${c}{${p.slice(i + 3, end)}}`, end + 1];
      }
      return [`\\${c}{${p[i + 2]}}`, i + 3];
    }
    case 'd':
    case 'D':
    case 'w':
    case 'W':
    case 'b':
    case 'B':
    case 'n':
    case 'r':
    case 't':
    case 'f':
    case 'v':
      return ['\\' + c, i + 2];
    case 'a':
      return ['\\x07', i + 2];
    default:
      if (/[0-9]/.test(c)) throw new Error('octal and back-reference escapes are not translatable');
      return [escapeLiteral(c), i + 2];
  }
}

function translate(p: string): { source: string; flags: string } {
  let flags = '';
  let i = 0;
  const lead = /^\(\?([imsU]+)\)/.exec(p);
  if (lead) {
    if (lead[1]!.includes('U')) throw new Error('ungreedy flag is not translatable');
    flags = Array.from(new Set(lead[1]!.replace('U', ''))).join('');
    i = lead[0].length;
  }
  let out = '';
  while (i < p.length) {
    const ch = p[i]!;
    if (ch === '\\') {
      if (p[i + 1] === 'Q') {
        const end = p.indexOf('\\E', i + 2);
        const lit = end < 0 ? p.slice(i + 2) : p.slice(i + 2, end);
        out += Array.from(lit).map(escapeLiteral).join('');
        i = end < 0 ? p.length : end + 2;
        continue;
      }
      const [t, next] = translateEscape(p, i, false);
      out += t;
      i = next;
      continue;
    }
    if (ch === '[') {
      const [t, next] = translateClass(p, i);
      out += t;
      i = next;
      continue;
    }
    if (ch === '(' && p[i + 1] === '?') {
      if (p.startsWith('(?P<', i)) {
        out += '(?<';
        i += 4;
        continue;
      }
      if (p[i + 2] === ':' || p[i + 2] === '<') {
        out += '(?' + p[i + 2];
        i += 3;
        continue;
      }
      throw new Error('inline flag groups are not translatable');
    }
    out += ch;
    i++;
  }
  return { source: out, flags };
}

function translateClass(p: string, start: number): [string, number] {
  let i = start + 1;
  let out = '[';
  if (p[i] === '^') {
    out += '^';
    i++;
  }
  let first = true;
  while (i < p.length) {
    const ch = p[i]!;
    if (ch === ']' && !first) return [out + ']', i + 1];
    first = false;
    if (ch === '[' && p[i + 1] === ':') {
      const end = p.indexOf(':]', i + 2);
      let name = p.slice(i + 2, end);
      const negated = name.startsWith('^');
      if (negated) throw new Error('negated POSIX classes are not translatable');
      name = name.replace(/^\^/, '');
      const cls = POSIX[name];
      if (cls === undefined) throw new Error(`unknown POSIX class ${name}`);
      out += cls;
      i = end + 2;
      continue;
    }
    if (ch === '\\') {
      const [t, next] = translateEscape(p, i, true);
      out += t;
      i = next;
      continue;
    }
    out += ch === '[' || ch === '/' ? '\\' + ch : ch;
    i++;
  }
  throw new Error('unterminated character class');
}

/** regexp.Regexp.Match: unanchored search with Go semantics. */
export function goRegexpTest(re: GoRegexp, input: string): boolean {
  return re.re2.test(input);
}

/** regexp.Expand: `$1`, `${1}`, `$name`, `${name}`, `$$`; unknown groups expand to nothing. */
function expand(template: string, m: RegExpExecArray, names: ReadonlyMap<string, number>): string {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const ch = template[i]!;
    if (ch !== '$' || i + 1 >= template.length) {
      out += ch;
      continue;
    }
    if (template[i + 1] === '$') {
      out += '$';
      i++;
      continue;
    }
    let name: string;
    let next: number;
    if (template[i + 1] === '{') {
      const end = template.indexOf('}', i + 2);
      const inner = end < 0 ? '' : template.slice(i + 2, end);
      if (end < 0 || !/^\w+$/.test(inner)) {
        out += ch;
        continue;
      }
      name = inner;
      next = end + 1;
    } else {
      const w = /^\w+/.exec(template.slice(i + 1));
      if (!w) {
        out += ch;
        continue;
      }
      name = w[0];
      next = i + 1 + name.length;
    }
    let group: number | undefined;
    if (/^\d+$/.test(name)) group = Number(name);
    else group = names.get(name);
    if (group !== undefined && group < m.length) out += m[group] ?? '';
    i = next - 1;
  }
  return out;
}

/** regexp.ReplaceAll / ReplaceAllLiteral, including Go's rule for empty matches after a match. */
export function goReplaceAll(re: GoRegexp, src: string, repl: string, literal: boolean): string | undefined {
  if (typeof re.js === 'string') return undefined;
  const rx = re.js;
  let out = '';
  let lastMatchEnd = 0;
  let searchPos = 0;
  while (searchPos <= src.length) {
    rx.lastIndex = searchPos;
    const m = rx.exec(src);
    if (m === null) break;
    const a0 = m.index;
    const a1 = a0 + m[0].length;
    out += src.slice(lastMatchEnd, a0);
    if (a1 > lastMatchEnd || a0 === 0) out += literal ? repl : expand(repl, m, re.names);
    lastMatchEnd = a1;
    const cp = src.codePointAt(searchPos);
    const width = cp !== undefined && cp > 0xffff ? 2 : 1;
    if (searchPos + width > a1) searchPos += width;
    else if (searchPos + 1 > a1) searchPos++;
    else searchPos = a1;
  }
  return out + src.slice(lastMatchEnd);
}
