/**
 * Strict, position-aware reading of plain JSON values parsed from YAML: every unknown key, wrong type or
 * missing field becomes a diagnostic with the span of the offending node, and reading continues so one
 * pass reports every problem of a document.
 */
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import type { Origin, Span } from '../../diagnostics/span.js';
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc, YamlPath } from '../../io/source.js';

export type Locator = Pick<SourceDoc, 'spanOf' | 'keySpanOf' | 'spanInString'>;

export const IR_DIALECT = 'ir';

export function describe(v: JsonValue | undefined): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a map';
  return `a ${typeof v}`;
}

export class Reader {
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    readonly loc: Locator,
    readonly dialect: string = IR_DIALECT,
  ) {}

  origin(path: YamlPath): Origin {
    return { ...this.loc.spanOf(path), dialect: this.dialect };
  }

  report(code: DiagnosticCode, span: Span, message: string): void {
    this.diagnostics.push(diagnostic(code, { phase: 'parse', dialect: this.dialect, span, message }));
  }

  error(path: YamlPath, message: string, code: DiagnosticCode = 'TM2002'): void {
    this.report(code, this.loc.spanOf(path), message);
  }

  /**
   * A map with only the listed keys (`required` must be present). Unknown keys are reported at the key,
   * missing ones at the map. Returns undefined when `v` is not a map or misses a required field.
   */
  object(v: JsonValue | undefined, path: YamlPath, what: string, required: readonly string[], optional: readonly string[]): JsonObject | undefined {
    if (!isJsonObject(v)) {
      this.error(path, `${what} must be a map, got ${describe(v)}`);
      return undefined;
    }
    for (const k of Object.keys(v)) {
      if (!required.includes(k) && !optional.includes(k)) {
        const allowed = [...required, ...optional].join(', ');
        this.report('TM2002', this.loc.keySpanOf([...path, k]), `unknown field "${k}" in ${what} (allowed: ${allowed})`);
      }
    }
    let complete = true;
    for (const k of required) {
      if (!hasOwn(v, k)) {
        this.error(path, `${what} is missing required field "${k}"`, 'TM2005');
        complete = false;
      }
    }
    return complete ? v : undefined;
  }

  string(v: JsonValue | undefined, path: YamlPath, what: string): string | undefined {
    if (typeof v === 'string') return v;
    this.error(path, `${what} must be a string, got ${describe(v)}`);
    return undefined;
  }

  boolean(v: JsonValue | undefined, path: YamlPath, what: string): boolean | undefined {
    if (typeof v === 'boolean') return v;
    this.error(path, `${what} must be true or false, got ${describe(v)}`);
    return undefined;
  }

  integer(v: JsonValue | undefined, path: YamlPath, what: string, min: number): number | undefined {
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= min) return v;
    this.error(path, `${what} must be an integer of at least ${min}, got ${typeof v === 'number' ? v : describe(v)}`);
    return undefined;
  }

  oneOf<T extends string>(v: JsonValue | undefined, path: YamlPath, what: string, allowed: readonly T[]): T | undefined {
    if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
    this.error(path, `${what} must be one of ${allowed.join(', ')}, got ${typeof v === 'string' ? JSON.stringify(v) : describe(v)}`);
    return undefined;
  }

  list(v: JsonValue | undefined, path: YamlPath, what: string): JsonValue[] | undefined {
    if (Array.isArray(v)) return v;
    this.error(path, `${what} must be a list, got ${describe(v)}`);
    return undefined;
  }

  /** Each element read by `item`; undefined when the list or any element is invalid. */
  listOf<T>(v: JsonValue | undefined, path: YamlPath, what: string, item: (x: JsonValue, p: YamlPath) => T | undefined): T[] | undefined {
    const xs = this.list(v, path, what);
    if (!xs) return undefined;
    const out: T[] = [];
    let good = true;
    xs.forEach((x, i) => {
      const r = item(x, [...path, i]);
      if (r === undefined) good = false;
      else out.push(r);
    });
    return good ? out : undefined;
  }

  stringList(v: JsonValue | undefined, path: YamlPath, what: string): string[] | undefined {
    return this.listOf(v, path, what, (x, p) => this.string(x, p, `an element of ${what}`));
  }

  stringMap(v: JsonValue | undefined, path: YamlPath, what: string): Record<string, string> | undefined {
    if (!isJsonObject(v)) {
      this.error(path, `${what} must be a map of strings, got ${describe(v)}`);
      return undefined;
    }
    let good = true;
    for (const k of Object.keys(v)) {
      if (typeof v[k] !== 'string') {
        this.error([...path, k], `${what}.${k} must be a string, got ${describe(v[k])}`);
        good = false;
      }
    }
    return good ? (v as Record<string, string>) : undefined;
  }

  /** The one key of `keys` present in `v`; reports none or several. */
  discriminator<K extends string>(v: JsonObject, path: YamlPath, what: string, keys: readonly K[]): K | undefined {
    const present = keys.filter((k) => hasOwn(v, k));
    if (present.length === 1) return present[0];
    if (present.length === 0) this.error(path, `${what} must have one of the fields ${keys.join(', ')}`, 'TM2005');
    else this.error(path, `${what} has several of the fields ${present.join(', ')}; exactly one is allowed`);
    return undefined;
  }
}
