/**
 * Reading one definition of a CEL policy dialect (MAP, MutatingPolicy): read, its CEL checked as the cluster
 * would (an error drops it, with the diagnostics kept), and a second definition of the same name warned
 * about and ignored, as a cluster keeps the object first written.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { SourceDoc } from '../io/source.js';
import { pushAll } from '../util/arrays.js';

/** The definition `read` finds in `doc`, unless its CEL check (`check`) reports an error. */
export function readChecked<P>(doc: SourceDoc, diagnostics: Diagnostic[], read: (doc: SourceDoc, diagnostics: Diagnostic[]) => P | undefined, check: (p: P) => Diagnostic[]): P | undefined {
  const p = read(doc, diagnostics);
  if (p === undefined) return undefined;
  const found = check(p);
  pushAll(diagnostics, found);
  return found.some((d) => d.severity === 'error') ? undefined : p;
}

/** The warning (TM2004) for a second definition of `what` (`MutatingPolicy "x"`) in `doc`. */
export function definedTwice(dialect: string, what: string, doc: SourceDoc): Diagnostic {
  return diagnostic('TM2004', { phase: 'parse', dialect, message: `${what} is defined more than once; the first definition is used`, span: doc.spanOf(['metadata', 'name']), severity: 'warning' });
}
