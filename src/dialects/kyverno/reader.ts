/** Reading a Kyverno policy document: values by YAML path, origins and diagnostics that point at them. */
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import { hasOwn, isJsonObject, type JsonValue } from '../../ir/json.js';
import type { Origin } from '../../ir/nodes.js';
import type { SourceDoc, YamlPath } from '../../io/source.js';

export const DIALECT = 'kyverno';

export class Reader {
  constructor(readonly doc: SourceDoc) {}

  get(path: YamlPath): JsonValue | undefined {
    let cur: JsonValue | undefined = this.doc.value;
    for (const k of path) {
      if (typeof k === 'number') cur = Array.isArray(cur) ? cur[k] : undefined;
      else cur = isJsonObject(cur) && hasOwn(cur, k) ? cur[k] : undefined;
      if (cur === undefined) return undefined;
    }
    return cur;
  }

  string(path: YamlPath): string | undefined {
    const v = this.get(path);
    return typeof v === 'string' ? v : undefined;
  }

  list(path: YamlPath): JsonValue[] {
    const v = this.get(path);
    return Array.isArray(v) ? v : [];
  }

  origin(path: YamlPath): Origin {
    return { ...this.doc.spanOf(path), dialect: DIALECT };
  }

  error(code: DiagnosticCode, message: string, path: YamlPath): Diagnostic {
    return diagnostic(code, { phase: 'parse', message, span: this.doc.spanOf(path), dialect: DIALECT });
  }

  warning(code: DiagnosticCode, message: string, path: YamlPath): Diagnostic {
    return diagnostic(code, { phase: 'parse', message, span: this.doc.spanOf(path), dialect: DIALECT, severity: 'warning' });
  }
}
