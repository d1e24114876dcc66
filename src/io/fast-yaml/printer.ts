/**
 * The fast kubectl-style printer: the reference printer's output (yaml-dump.ts `Emitter`), byte for byte, for
 * plain JSON values (plain objects, arrays, strings, finite numbers, booleans, null), written into one string
 * instead of an array of lines and with the common strings classified by a character scan instead of the
 * scalar-style regular expressions. Anything else (undefined or function members, `toJSON` objects, class
 * instances, bigints, non-finite numbers, keys over 1000 characters, nesting that may be a cycle) returns
 * undefined, and the reference prints it.
 */
import { inlineString, literalBlock, literalBlockAllowed } from './scalar-style.js';

class NotPlainJson {}
const NOT_PLAIN_JSON = new NotPlainJson();

/** The reference refuses cycles with a TypeError; deeper than this we let it look. */
const MAX_DEPTH = 512;

/**
 * ASCII characters a plain scalar may hold anywhere (with the checks in `isTriviallyPlain`): letters, digits and
 * the punctuation of names, images, paths, quantities and selectors.
 */
const PLAIN_BODY = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,;()$ ') PLAIN_BODY[c.charCodeAt(0)] = 1;
/**
 * First characters after which go-yaml never resolves a plain scalar to anything but a string (resolve.go
 * `resolveTable`): letters other than those of the YAML 1.1 booleans and null.
 */
const PLAIN_FIRST = new Uint8Array(128);
for (const c of 'abcdeghijklmpqrsuvwxzABCDEGHIJKLMPQRSUVWXZ') PLAIN_FIRST[c.charCodeAt(0)] = 1;

/**
 * Strings `inlineString` would print as they are, found without it: a safe first letter, safe characters, no
 * `: `, no trailing space or colon. Everything else goes through `inlineString` (cached).
 */
function isTriviallyPlain(s: string): boolean {
  const n = s.length;
  if (n === 0) return false;
  const first = s.charCodeAt(0);
  if (first >= 128 || PLAIN_FIRST[first] === 0) return false;
  for (let i = 1; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || PLAIN_BODY[c] === 0) return false;
    if (c === 58 /* : */ && s.charCodeAt(i + 1) === 32) return false;
  }
  const last = s.charCodeAt(n - 1);
  return last !== 32 && last !== 58;
}

const CACHE_LIMIT = 4096;
const styled = new Map<string, string>();

function inline(s: string): string {
  if (isTriviallyPlain(s)) return s;
  let out = styled.get(s);
  if (out === undefined) {
    out = inlineString(s);
    if (styled.size >= CACHE_LIMIT) styled.clear();
    styled.set(s, out);
  }
  return out;
}

function isPlainObject(v: object): v is Record<string, unknown> {
  const proto = Object.getPrototypeOf(v) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

function scalar(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return inline(v);
    case 'number':
      if (!Number.isFinite(v)) throw NOT_PLAIN_JSON;
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      if (v === null) return 'null';
      throw NOT_PLAIN_JSON;
  }
}

class Printer {
  out = '';

  constructor(private readonly sortKeys: boolean) {}

  /**
   * The reference's `Emitter.value`: `v` after `lead` (`key:`, `- `, or nothing at the root), nested content
   * indented from `ind`. A collection inside a sequence starts on the lead's line (`- a: 1`, `- - x`): its first
   * line takes `lead` in place of its indentation.
   */
  value(v: unknown, ind: string, lead: string, inSeq: boolean, depth: number): void {
    if (typeof v === 'object' && v !== null) {
      if (depth > MAX_DEPTH) throw NOT_PLAIN_JSON;
      if (Array.isArray(v)) {
        if (v.length > 0) {
          if (inSeq) this.seq(v, `${ind}  `, lead, depth);
          else {
            if (lead !== '') this.out += `${lead}\n`;
            this.seq(v, ind, ind, depth);
          }
          return;
        }
      } else {
        if (!isPlainObject(v)) throw NOT_PLAIN_JSON;
        const keys = Object.keys(v);
        if (keys.length > 0) {
          if (this.sortKeys) keys.sort();
          if (lead === '') this.map(v, keys, ind, ind, depth);
          else if (inSeq) this.map(v, keys, `${ind}  `, lead, depth);
          else {
            this.out += `${lead}\n`;
            this.map(v, keys, `${ind}  `, `${ind}  `, depth);
          }
          return;
        }
      }
      this.out += `${lead}${lead === '' || inSeq ? '' : ' '}${Array.isArray(v) ? '[]' : '{}'}\n`;
      return;
    }
    const sep = lead === '' || inSeq ? '' : ' ';
    if (typeof v === 'string' && v.includes('\n') && literalBlockAllowed(v)) {
      const lines: string[] = [];
      literalBlock(v, `${ind}  `, lines, lead + sep);
      this.out += `${lines.join('\n')}\n`;
    } else this.out += `${lead}${sep}${scalar(v)}\n`;
  }

  private map(obj: Record<string, unknown>, keys: string[], ind: string, first: string, depth: number): void {
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const v = obj[k];
      // The reference skips these members (after deciding whether the map is empty): not worth mirroring.
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol' || k.length > 1000) throw NOT_PLAIN_JSON;
      this.value(v, ind, `${i === 0 ? first : ind}${inline(k)}:`, false, depth + 1);
    }
  }

  private seq(items: unknown[], ind: string, first: string, depth: number): void {
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      this.value(item === undefined || typeof item === 'function' ? null : item, ind, `${i === 0 ? first : ind}- `, true, depth + 1);
    }
  }
}

/** `toYaml(value, { sortKeys })` for plain JSON values; undefined for anything the reference must print. */
export function printYamlFast(value: unknown, sortKeys: boolean): string | undefined {
  const p = new Printer(sortKeys);
  try {
    p.value(value, '', '', false, 0);
  } catch (e) {
    if (e === NOT_PLAIN_JSON) return undefined;
    throw e;
  }
  return p.out;
}
