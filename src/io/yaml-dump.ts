/**
 * Deterministic YAML and JSON output, kubectl style: block collections, 2-space indent, list items not indented
 * under their key (`- a`), no line folding, keys in insertion order (or sorted on request), empty collections as
 * `{}` / `[]`, and quotes only where a reader would otherwise misread the string.
 *
 * Scalar styles follow what `kubectl get -o yaml` prints (go-yaml v2's encoder over libyaml's emitter):
 * - a string that would resolve to another type if written plain (`yes`, `on`, `y`, `null`, `1.0`, `0777`, `''`,
 *   `<<`, timestamps, `1:20`) is double-quoted (encode.go `stringv`), judged by the same go-yaml v2 rules we read with;
 * - a multi-line string is a literal block (`|`, `|-`, `|+`, with an indentation indicator when it starts with a
 *   space), unless libyaml would refuse block style (white space before a line break or at the end, tabs, control
 *   characters: emitterc.go `yaml_emitter_analyze_scalar`), in which case it is double-quoted;
 * - a string plain style cannot carry (leading indicator such as `*`, `&`, `!`, `- `; `: ` or ` #` inside; leading
 *   or trailing spaces) is single-quoted, as libyaml prefers (`- '*'`), or double-quoted if it has characters
 *   single quotes cannot show (tabs, control characters).
 * Written directly rather than through the `yaml` package's stringifier, which is several times slower; the tests
 * read every output back with both our reader and the `yaml` package.
 */
import { stringify } from 'yaml';
import { printYamlFast } from './fast-yaml/printer.js';
import { inlineString, literalBlock, literalBlockAllowed } from './fast-yaml/scalar-style.js';

export interface DumpOptions {
  /** Sort map keys (code-unit order) instead of keeping insertion order. */
  sortKeys?: boolean;
}

class TooLongKey extends Error {}

class Emitter {
  readonly out: string[] = [];
  private readonly ancestors = new Set<object>();

  constructor(private readonly sortKeys: boolean) {}

  /** A value after `lead` (`key:`, `- `, or nothing at the root); nested content is indented from `ind`. */
  value(v: unknown, ind: string, lead: string, inSeq: boolean): void {
    v = toJsonLike(v);
    const root = lead === '';
    if (Array.isArray(v) && v.length > 0) {
      if (inSeq) this.nested(() => this.seq(v as unknown[], `${ind}  `), ind, lead);
      else {
        if (!root) this.out.push(lead);
        this.seq(v as unknown[], ind); // kubectl style: items at the key's indentation
      }
      return;
    }
    if (isPlainObjectLike(v) && this.keysOf(v).length > 0) {
      if (root) this.map(v as Record<string, unknown>, ind);
      else if (inSeq) this.nested(() => this.map(v as Record<string, unknown>, `${ind}  `), ind, lead);
      else {
        this.out.push(lead);
        this.map(v as Record<string, unknown>, `${ind}  `);
      }
      return;
    }
    const sep = root || inSeq ? '' : ' ';
    if (typeof v === 'string' && literalBlockAllowed(v)) literalBlock(v, `${ind}  `, this.out, lead + sep);
    else this.out.push(lead + sep + scalar(v));
  }

  /** Puts the first line of a nested collection on the lead's line (`- a: 1`, `- - x`). */
  private nested(body: () => void, ind: string, lead: string): void {
    const start = this.out.length;
    body();
    if (lead !== '') this.out[start] = lead + this.out[start]!.slice(ind.length + 2);
  }

  private guard(v: object): void {
    if (this.ancestors.has(v)) throw new TypeError('Converting circular structure to YAML');
  }

  private keysOf(obj: object): string[] {
    const keys = Object.keys(obj).filter((k) => {
      const x = (obj as Record<string, unknown>)[k];
      return x !== undefined && typeof x !== 'function' && typeof x !== 'symbol';
    });
    return this.sortKeys ? keys.sort() : keys;
  }

  private map(obj: Record<string, unknown>, ind: string): void {
    this.guard(obj);
    this.ancestors.add(obj);
    for (const k of this.keysOf(obj)) {
      if (k.length > 1000) throw new TooLongKey(); // implicit keys are limited to 1024 characters
      this.value(obj[k], ind, `${ind}${inlineString(k)}:`, false);
    }
    this.ancestors.delete(obj);
  }

  private seq(items: unknown[], ind: string): void {
    this.guard(items);
    this.ancestors.add(items);
    for (const item of items) this.value(item === undefined || typeof item === 'function' ? null : item, ind, `${ind}- `, true);
    this.ancestors.delete(items);
  }
}

function toJsonLike(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') return (v as { toJSON(): unknown }).toJSON();
  return v;
}

function isPlainObjectLike(v: unknown): v is object {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function scalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return inlineString(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return '[]';
  if (typeof v === 'object') return '{}';
  return 'null';
}

/** One YAML document (no `---`), ending with a newline. */
export function toYaml(value: unknown, opts: DumpOptions = {}): string {
  return printYamlFast(value, opts.sortKeys ?? false) ?? toYamlReference(value, opts);
}

/** `toYaml` by the reference printer alone, which the fast printer (fast-yaml/printer.ts) is tested against. */
export function toYamlReference(value: unknown, opts: DumpOptions = {}): string {
  const e = new Emitter(opts.sortKeys ?? false);
  try {
    e.value(value, '', '', false);
  } catch (err) {
    if (!(err instanceof TooLongKey)) throw err;
    // Keys over 1024 characters need explicit `? ` syntax; leave such rare documents to the `yaml` package.
    return stringify(value, { indent: 2, indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false, sortMapEntries: opts.sortKeys ?? false });
  }
  return `${e.out.join('\n')}\n`;
}

/** Several documents separated by `---` lines (none before the first). */
export function toYamlDocuments(values: readonly unknown[], opts: DumpOptions = {}): string {
  return values.map((v) => toYaml(v, opts)).join('---\n');
}

/** 2-space JSON, without a trailing newline. */
export function toJson(value: unknown): string {
  return JSON.stringify(value ?? null, null, 2);
}
