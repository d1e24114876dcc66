/**
 * `--validate strict|warn|ignore`, as kubectl spells it: which policy documents go on to be parsed after the
 * cluster's admission checks, and how those checks are reported.
 */
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Dialect } from '../dialects/dialect.js';
import type { SourceDoc } from '../io/source.js';
import { admissionDiagnostics } from './admission.js';
import { pushAll } from '../util/arrays.js';

export type ValidateMode = 'strict' | 'warn' | 'ignore';
export const VALIDATE_MODES: readonly ValidateMode[] = ['strict', 'warn', 'ignore'];

export interface AdmitOptions {
  mode?: ValidateMode;
  /**
   * `engine` runs only the engine's own checks: for harnesses whose upstream called the engine's validation
   * directly (Gatekeeper's webhook unit tests), never through an API server.
   */
  stages?: 'all' | 'engine';
}

export interface Admitted {
  admitted: SourceDoc[];
  diagnostics: Diagnostic[];
}

/** Admission of one dialect's documents: under `strict` a refused document is not parsed at all. */
export function admitDocs(dialect: Dialect, docs: readonly SourceDoc[], opts: AdmitOptions = {}): Admitted {
  const mode = opts.mode ?? 'strict';
  if (mode === 'ignore') return { admitted: [...docs], diagnostics: [] };
  const admitted: SourceDoc[] = [];
  const diagnostics: Diagnostic[] = [];
  const engine = dialect.validate?.bind(dialect);
  for (const doc of docs) {
    const found = opts.stages === 'engine' ? (engine ? engine(doc) : []) : admissionDiagnostics(doc, engine, dialect.name);
    const refused = found.some((d) => d.severity === 'error');
    if (mode === 'warn') pushAll(diagnostics, found.map((d) => (d.severity === 'error' ? { ...d, severity: 'warning' as const } : d)));
    else pushAll(diagnostics, found);
    if (!refused || mode === 'warn') admitted.push(doc);
  }
  return { admitted, diagnostics };
}
