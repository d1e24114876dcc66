/**
 * Typed reads of a mutator document with the checks the API server's structural schema makes before
 * Gatekeeper sees the object: wrong types are refused (TM2002, worded like the API server), `null` counts as
 * absent (non-nullable fields are pruned), and unknown fields are dropped with a warning (TM2007).
 */
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Origin, Span } from '../../diagnostics/span.js';
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc, YamlPath } from '../../io/source.js';

export const DIALECT = 'gatekeeper';

/** `spec.applyTo[0].groups`: the API server's way of naming a field. */
export function fieldName(path: YamlPath): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  return out;
}

function jsonType(v: JsonValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

export class FieldReader {
  readonly diagnostics: Diagnostic[] = [];

  constructor(readonly doc: SourceDoc) {}

  /** The value at `path`; `null` and missing are both `undefined`. */
  get(path: YamlPath): JsonValue | undefined {
    let cur: JsonValue | undefined = this.doc.value;
    for (const p of path) {
      if (cur === undefined || cur === null) return undefined;
      if (typeof p === 'number') {
        if (!Array.isArray(cur)) return undefined;
        cur = cur[p];
      } else {
        if (!isJsonObject(cur) || !hasOwn(cur, p)) return undefined;
        cur = cur[p];
      }
    }
    return cur === null ? undefined : cur;
  }

  has(path: YamlPath): boolean {
    return this.get(path) !== undefined;
  }

  span(path: YamlPath): Span {
    return this.doc.spanOf(path);
  }

  origin(path: YamlPath): Origin {
    return { ...this.doc.spanOf(path), dialect: DIALECT };
  }

  report(code: DiagnosticCode, message: string, path: YamlPath, severity?: 'warning', span = this.span(path)): void {
    const init = { phase: 'parse' as const, message, span, dialect: DIALECT };
    this.diagnostics.push(diagnostic(code, severity ? { ...init, severity } : init));
  }

  private typeError(path: YamlPath, v: JsonValue, expected: string): void {
    const name = fieldName(path);
    const actual = jsonType(v);
    this.report('TM2002', `${name}: Invalid value: "${actual}": ${name} in body must be of type ${expected}: "${actual}"`, path);
  }

  string(path: YamlPath): string | undefined {
    const v = this.get(path);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') {
      this.typeError(path, v, 'string');
      return undefined;
    }
    return v;
  }

  object(path: YamlPath, known?: readonly string[]): JsonObject | undefined {
    const v = this.get(path);
    if (v === undefined) return undefined;
    if (!isJsonObject(v)) {
      this.typeError(path, v, 'object');
      return undefined;
    }
    if (known) this.warnUnknown(path, v, known);
    return v;
  }

  array(path: YamlPath): JsonValue[] | undefined {
    const v = this.get(path);
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) {
      this.typeError(path, v, 'array');
      return undefined;
    }
    return v;
  }

  /** A list of strings; a non-string item is refused (and skipped). */
  stringList(path: YamlPath): string[] | undefined {
    const items = this.array(path);
    if (items === undefined) return undefined;
    const out: string[] = [];
    items.forEach((_, i) => {
      const s = this.string([...path, i]);
      if (s !== undefined) out.push(s);
    });
    return out;
  }

  /** A string restricted to `allowed` (a CRD enum); reported as the API server does. */
  enumString(path: YamlPath, allowed: readonly string[]): string | undefined {
    const s = this.string(path);
    if (s === undefined || allowed.includes(s)) return s;
    const name = fieldName(path);
    this.report('TM2004', `${name}: Unsupported value: "${s}": supported values: ${allowed.map((a) => `"${a}"`).join(', ')}`, path);
    return undefined;
  }

  private warnUnknown(path: YamlPath, obj: JsonObject, known: readonly string[]): void {
    for (const k of Object.keys(obj)) {
      if (known.includes(k)) continue;
      const at = [...path, k];
      this.report('TM2007', `unknown field "${fieldName(at)}"`, at, 'warning', this.doc.keySpanOf(at));
    }
  }
}
