/** Typed reads of a MAP document with diagnostics that point at the offending YAML node. */
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc, YamlPath } from '../../io/source.js';

export class Reader {
  constructor(
    readonly doc: SourceDoc,
    readonly diagnostics: Diagnostic[],
  ) {}

  report(code: DiagnosticCode, path: YamlPath, message: string, key = false): void {
    const span = key ? this.doc.keySpanOf(path) : this.doc.spanOf(path);
    this.diagnostics.push(diagnostic(code, { phase: 'parse', dialect: 'map', message, span }));
  }

  get(path: YamlPath): JsonValue | undefined {
    let cur: JsonValue | undefined = this.doc.value;
    for (const k of path) {
      if (typeof k === 'number') cur = Array.isArray(cur) ? cur[k] : undefined;
      else cur = isJsonObject(cur) && Object.prototype.hasOwnProperty.call(cur, k) ? cur[k] : undefined;
      if (cur === undefined) return undefined;
    }
    return cur;
  }

  /** A mapping at `path`; absent or null is undefined, any other shape an error. */
  obj(path: YamlPath): JsonObject | undefined {
    const v = this.get(path);
    if (v === undefined || v === null) return undefined;
    if (!isJsonObject(v)) {
      this.report('TM2002', path, `${fieldName(path)}: expected a mapping`);
      return undefined;
    }
    return v;
  }

  list(path: YamlPath): JsonValue[] {
    const v = this.get(path);
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      this.report('TM2002', path, `${fieldName(path)}: expected a list`);
      return [];
    }
    return v;
  }

  str(path: YamlPath): string | undefined {
    const v = this.get(path);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') {
      this.report('TM2002', path, `${fieldName(path)}: expected a string`);
      return undefined;
    }
    return v;
  }

  strings(path: YamlPath): string[] {
    return this.list(path).flatMap((x, i) => {
      if (typeof x === 'string') return [x];
      this.report('TM2002', [...path, i], `${fieldName([...path, i])}: expected a string`);
      return [];
    });
  }

  /** A required string: missing or empty is "Required value", as the API server's validation says. */
  required(path: YamlPath): string | undefined {
    const s = this.str(path);
    if (s === undefined || s === '') {
      this.report('TM2005', path, `${fieldName(path)}: Required value`);
      return undefined;
    }
    return s;
  }

  /** One of `allowed`, or `fallback` when absent (the API default). */
  oneOf<T extends string>(path: YamlPath, allowed: readonly T[], fallback: T): T {
    const s = this.str(path);
    if (s === undefined) return fallback;
    if ((allowed as readonly string[]).includes(s)) return s as T;
    this.report('TM2002', path, `${fieldName(path)}: Unsupported value: ${JSON.stringify(s)}: supported values: ${allowed.map((a) => JSON.stringify(a)).join(', ')}`);
    return fallback;
  }
}

/** `spec.mutations[0].patchType`, as the API server names fields in its errors. */
export function fieldName(path: YamlPath): string {
  let out = '';
  for (const k of path) out += typeof k === 'number' ? `[${k}]` : out === '' ? k : `.${k}`;
  return out;
}
