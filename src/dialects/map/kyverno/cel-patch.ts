/**
 * The building blocks of a JSONPatch mutation written as one CEL expression: a place in the object (the CEL
 * of its value and its JSON pointer, static text and CEL string parts), JSONPatch values, lists of them and
 * conditionals. Every Kyverno rule becomes one such expression evaluated against the object as the rule finds
 * it, so every test and every value it computes reads the same snapshot, as Kyverno's rule does.
 */
import { celString, hasField, isSelectable, renderPointer, select, type Pointer } from '../emit-cel.js';
import type { JsonObject, JsonValue } from '../../../ir/json.js';

/** CEL source text. */
export type Cel = string;

/** A JSON pointer under construction: static text and CEL string expressions (list indices, computed keys). */
export type { Pointer } from '../emit-cel.js';
export { renderPointer };

export interface Place {
  /** The CEL of the value at this place (valid where the place exists). */
  cel: Cel;
  ptr: Pointer;
}

export const ROOT: Place = { cel: 'object', ptr: [] };

function escapeStatic(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The place of a map key below `at`. */
export function fieldPlace(at: Place, key: string): Place {
  return { cel: select(at.cel, key), ptr: [...at.ptr, `/${escapeStatic(key)}`] };
}

/** The place of the list element at the CEL index `index` below `at`. */
export function indexPlace(at: Place, index: Cel, item?: Cel): Place {
  return { cel: item ?? `${at.cel}[${index}]`, ptr: [...at.ptr, '/', { cel: `string(${index})` }] };
}

export function staticIndexPlace(at: Place, index: number): Place {
  return { cel: `${at.cel}[${index}]`, ptr: [...at.ptr, `/${index}`] };
}


export function patch(op: 'add' | 'replace' | 'remove' | 'move' | 'copy' | 'test', at: Pointer, value?: Cel, from?: Pointer): Cel {
  const f = from === undefined ? '' : `, from: ${renderPointer(from)}`;
  const v = value === undefined ? '' : `, value: ${value}`;
  return `JSONPatch{op: ${celString(op)}${f}, path: ${renderPointer(at)}${v}}`;
}

export const NONE: Cel = '[]';

/** `[p]` for one patch. */
export function one(p: Cel): Cel {
  return `[${p}]`;
}

/** Whether a CEL list expression is certainly empty. */
function isNone(x: Cel): boolean {
  return x === NONE;
}

function operand(x: Cel): Cel {
  // A list literal or a call result can be concatenated as it is; anything with a top-level operator is wrapped.
  return /^\[[^]*\]$/.test(x) && balanced(x) ? x : `(${x})`;
}

/**
 * Walks the characters of `x` outside string literals, with the bracket depth after each one; stops and
 * returns true when `stop` does.
 */
function scanOutsideStrings(x: Cel, stop: (ch: string, i: number, depth: number) => boolean): boolean {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < x.length; i++) {
    const ch = x[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[' || ch === '(' || ch === '{') depth++;
    else if (ch === ']' || ch === ')' || ch === '}') depth--;
    if (stop(ch, i, depth)) return true;
  }
  return false;
}

/** Whether a bracketed expression closes only at its end (`[a] + [b]` is not one list literal). */
function balanced(x: Cel): boolean {
  return !scanOutsideStrings(x, (ch, i, depth) => depth === 0 && (ch === ']' || ch === ')' || ch === '}') && i < x.length - 1);
}

/** The concatenation of patch lists, in order. */
export function concat(parts: readonly Cel[]): Cel {
  const kept = parts.filter((p) => !isNone(p));
  if (kept.length === 0) return NONE;
  if (kept.length === 1) return kept[0]!;
  return kept.map(operand).join(' + ');
}

/** Whether `x` has an operator (or a space) outside brackets and strings. */
function needsParens(x: Cel): boolean {
  const operator = (ch: string, next: string | undefined): boolean =>
    ch === '?' || ch === ':' || (ch === '|' && next === '|') || (ch === '&' && next === '&') || ch === '+' || ch === '=' || ch === '!' || ch === '<' || ch === '>' || ch === ' ';
  return scanOutsideStrings(x, (ch, i, depth) => depth === 0 && !'[](){}'.includes(ch) && operator(ch, x[i + 1]));
}

/** `x` as an operand of a binary operator or a conditional. */
export function paren(x: Cel): Cel {
  return needsParens(x) ? `(${x})` : x;
}

/** `test ? then : otherwise`, with the branches kept readable. */
export function cond(test: Cel | undefined, then: Cel, otherwise: Cel = NONE): Cel {
  if (test === undefined || test === 'true') return then;
  if (test === 'false') return otherwise;
  if (then === otherwise) return then;
  return `${paren(test)} ? ${paren(then)} : ${paren(otherwise)}`;
}

export function and(parts: readonly (Cel | undefined)[]): Cel | undefined {
  const kept = parts.filter((p): p is Cel => p !== undefined && p !== 'true');
  if (kept.includes('false')) return 'false';
  if (kept.length === 0) return undefined;
  if (kept.length === 1) return kept[0];
  return kept.map(paren).join(' && ');
}

export function or(parts: readonly Cel[]): Cel {
  if (parts.includes('true')) return 'true';
  const kept = parts.filter((p) => p !== 'false');
  if (kept.length === 0) return 'false';
  if (kept.length === 1) return kept[0]!;
  return kept.map(paren).join(' || ');
}

export function not(x: Cel): Cel {
  if (x === 'true') return 'false';
  if (x === 'false') return 'true';
  if (x.startsWith('!') && !needsParens(x.slice(1))) return x.slice(1);
  return `!${paren(x)}`;
}

/**
 * A CEL value that fails with `message` (a lookup of that key in an empty map): where the CEL must stop as
 * Kyverno's rule fails, or where a translation limit is reached at runtime.
 */
export function failWith(message: string): Cel {
  return `{}[${celString(message)}]`;
}

/** failWith for a limit of the translation, said as transmute's. */
export function translationLimit(why: string): Cel {
  return failWith(`transmute: ${why}`);
}

/** The presence test of a key of the map at `at`. */
export function has(at: Place, key: string): Cel {
  return hasField(at.cel, key);
}

export { celString, isSelectable };

/**
 * A JSON list or map as a CEL literal, each item or value written by `item` and each key checked by `key`;
 * the first refusal stops it.
 */
export function celCollection<Why>(v: readonly JsonValue[] | JsonObject, item: (x: JsonValue) => Cel | Why, key: (k: string) => Why | undefined, isWhy: (x: Cel | Why) => x is Why): Cel | Why {
  if (Array.isArray(v)) {
    const items: Cel[] = [];
    for (const x of v) {
      const c = item(x);
      if (isWhy(c)) return c;
      items.push(c);
    }
    return `[${items.join(', ')}]`;
  }
  const entries: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    const bad = key(k);
    if (bad !== undefined) return bad;
    const c = item(x);
    if (isWhy(c)) return c;
    entries.push(`${JSON.stringify(k)}: ${c}`);
  }
  return `{${entries.join(', ')}}`;
}
