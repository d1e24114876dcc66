/**
 * Kyverno wildcards (go-wildcard v1.0.3, kyverno.md §1.4: `*` any run, `?` exactly one rune, everything
 * else literal, whole-string match) as RE2 for CEL's matches(). `(?s)` lets `.` match a newline too.
 */
import { celString, frag, litString, op, tyOf, type Frag } from './frag.js';
import { isPlainString } from './types.js';

const RE2_META = new Set(['\\', '.', '+', '*', '?', '(', ')', '|', '[', ']', '{', '}', '^', '$']);

export function wildcardRegex(pattern: string): string {
  let out = '';
  for (const ch of pattern) {
    if (ch === '*') out += '.*';
    else if (ch === '?') out += '.';
    else out += RE2_META.has(ch) ? `\\${ch}` : ch;
  }
  return `^(?s:${out})$`;
}

/**
 * The RE2 text of a pattern known only at runtime: the pattern quoted (`\Q...\E`, a literal `\E` in it
 * spelled out), with every `*` and `?` closing the quote for `.*` or `.`.
 */
export function dynamicWildcardRegex(p: Frag): string {
  const r = (from: string, to: string): string => `.replace(${celString(from)}, ${celString(to)})`;
  const quoted = `${op(p)}${r('\\E', '\\E\\\\E\\Q')}${r('*', '\\E.*\\Q')}${r('?', '\\E.\\Q')}`;
  return `${celString('^(?s:\\Q')} + ${quoted} + ${celString('\\E)$')}`;
}

/** A CEL bool: `subject` (a string) matches the wildcard `pattern`. */
export function wildcardMatch(pattern: Frag, subject: Frag): Frag {
  const text = litString(pattern);
  if (text !== undefined) {
    if (!text.includes('*') && !text.includes('?')) return frag(`${op(subject)} == ${pattern.cel}`, 'bool');
    if (text === '*') return frag('true', 'bool', { simple: true, atom: true });
    return frag(`${op(subject)}.matches(${celString(wildcardRegex(text))})`, 'bool', { atom: true });
  }
  // A pattern without `*` or `?` matches only itself.
  if (isPlainString(tyOf(pattern))) return frag(`${op(subject)} == ${op(pattern)}`, 'bool');
  return frag(`${op(subject)}.matches(${dynamicWildcardRegex(pattern)})`, 'bool', { atom: true });
}
