import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import type { Origin } from '../diagnostics/span.js';

/**
 * An evaluation error on its way from deep inside a walk to the rule boundary, where it becomes a diagnostic
 * value in the result. It always carries a catalogued code and the origin of the op that failed.
 */
export class EvalFailure {
  constructor(readonly diagnostic: Diagnostic) {}
}

export function evalFailure(code: DiagnosticCode, message: string, origin?: Origin): EvalFailure {
  return new EvalFailure(diagnostic(code, { phase: 'eval', message, span: origin, dialect: origin?.dialect }));
}

/** Go's `%T`-like name of a JSON value's type, for shape-mismatch messages. */
export function jsonTypeName(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (typeof v === 'object') return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  return 'string';
}
