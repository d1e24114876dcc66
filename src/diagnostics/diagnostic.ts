import { CODES, type DiagnosticCode, type Severity } from './codes.js';
import type { Span } from './span.js';

export type Phase = 'io' | 'parse' | 'lower' | 'optimize' | 'emit' | 'eval' | 'cli';

/**
 * Why a construct was not translated (TM4001): the target `cannot` state it with the same meaning, or
 * transmute does not translate it `yet`.
 */
export type UnsupportedClass = 'cannot' | 'yet';

export interface RelatedInfo {
  message: string;
  span?: Span;
}

/** A diagnostic is a value: code from the closed catalogue, severity, message and the source span. */
export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  phase: Phase;
  dialect?: string;
  span?: Span;
  related?: RelatedInfo[];
  unsupported?: UnsupportedClass;
}

export interface DiagnosticInit {
  phase: Phase;
  message: string;
  span?: Span | undefined;
  dialect?: string;
  severity?: Severity;
  related?: RelatedInfo[];
  unsupported?: UnsupportedClass;
}

export function diagnostic(code: DiagnosticCode, init: DiagnosticInit): Diagnostic {
  const d: Diagnostic = {
    code,
    severity: init.severity ?? CODES[code].severity,
    message: init.message,
    phase: init.phase,
  };
  if (init.dialect !== undefined) d.dialect = init.dialect;
  if (init.span !== undefined) d.span = init.span;
  if (init.related !== undefined && init.related.length > 0) d.related = init.related;
  if (init.unsupported !== undefined) d.unsupported = init.unsupported;
  return d;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** The result of an operation that can fail: a value, or diagnostics explaining why not (plus any warnings). */
export type Result<T> =
  | { ok: true; value: T; diagnostics: Diagnostic[] }
  | { ok: false; diagnostics: Diagnostic[] };

export function ok<T>(value: T, diagnostics: Diagnostic[] = []): Result<T> {
  return { ok: true, value, diagnostics };
}

export function fail<T = never>(...diagnostics: Diagnostic[]): Result<T> {
  return { ok: false, diagnostics };
}

/** `fail` for a list of any length (a spread of 100,000 diagnostics would overflow the stack). */
export function failWith<T = never>(diagnostics: Diagnostic[]): Result<T> {
  return { ok: false, diagnostics };
}
