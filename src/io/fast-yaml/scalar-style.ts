/**
 * How one string is written in kubectl-style YAML (the rules are listed in yaml-dump.ts): plain, single-quoted,
 * double-quoted, or a literal block. Shared by the reference printer (yaml-dump.ts) and the fast one
 * (printer.ts), so the two cannot disagree on a scalar.
 */
import { plainWouldChangeType } from '../go-yaml-resolve.js';

/**
 * Characters libyaml will not print as they are (it escapes them, which only double quotes can do): controls
 * (tab included, emitterc.go `IS_PRINTABLE`), C1, YAML 1.1 line separators, BOM, unpaired surrogates.
 */
const NEEDS_ESCAPE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const FIRST_CHAR_INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;

function doubleQuoted(s: string): string {
  // JSON string syntax is valid YAML double-quoted syntax; also escape what YAML 1.1 readers treat as line breaks.
  return JSON.stringify(s).replace(/[\x7f-\x9f\u2028\u2029\ufeff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function canBePlain(s: string): boolean {
  if (s === '' || s.includes('\n') || NEEDS_ESCAPE.test(s)) return false;
  const first = s[0]!;
  const last = s[s.length - 1]!;
  if (first === ' ' || last === ' ' || last === ':') return false;
  if (FIRST_CHAR_INDICATOR.test(s)) {
    // `-x`, `--flag`, `?x`, `:x` are plain in block context; a lone indicator or one before a space is not.
    if (!((first === '-' || first === '?' || first === ':') && s.length > 1 && s[1] !== ' ')) return false;
  }
  if (s.startsWith('---') || s.startsWith('...')) return false;
  if (s.includes(': ') || s.includes(' #')) return false;
  return !plainWouldChangeType(s);
}

/** A string on one line: plain, single-quoted or double-quoted. */
export function inlineString(s: string): string {
  if (canBePlain(s)) return s;
  if (plainWouldChangeType(s) || s.includes('\n') || NEEDS_ESCAPE.test(s)) return doubleQuoted(s);
  return `'${s.replace(/'/g, "''")}'`;
}

/** Whether libyaml would print this multi-line string as a literal block. */
export function literalBlockAllowed(s: string): boolean {
  return s.includes('\n') && /\S/.test(s) && !NEEDS_ESCAPE.test(s) && !/[ \t]\n|[ \t]$/.test(s) && !plainWouldChangeType(s);
}

/** `|` header and content lines of a literal block, content indented by `ind`. */
export function literalBlock(s: string, ind: string, out: string[], lead: string): void {
  const body = s.replace(/\n+$/, '');
  const trailing = s.length - body.length;
  const chomp = trailing === 0 ? '-' : trailing === 1 ? '' : '+';
  const firstContent = body.split('\n').find((l) => l !== '') ?? '';
  const indicator = firstContent.startsWith(' ') ? '2' : '';
  out.push(`${lead}|${indicator}${chomp}`);
  for (const line of body.split('\n')) out.push(line === '' ? '' : ind + line);
  for (let i = 1; i < trailing; i++) out.push('');
}
