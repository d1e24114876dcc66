/**
 * MutatingPolicies that mutate existing resources (`spec.evaluation.mutateExisting.enabled`), in a
 * translation. The admission IR holds only what such a policy does at admission (parse.ts lowerMpol), so the
 * policy itself is what a translation to `kyverno-mpol` writes: the document as it is, at the requested
 * apiVersion, with only its identifying metadata (its admission part must not be written a second time:
 * `withoutRewritten`). The targets that mutate only admission requests cannot hold the background part.
 */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Origin } from '../../diagnostics/span.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc } from '../../io/source.js';
import { cannot, GenerationReport, notYet } from '../generate-report.js';
import { DIALECT, GROUP } from './model.js';
import { mutatesExisting } from './recognize.js';

export interface ExistingPassthrough {
  documents: JsonObject[];
  diagnostics: Diagnostic[];
  /** The MutatingPolicies with evaluation.mutateExisting found (written or refused). */
  policies: number;
}

const TARGET_LABELS: Record<string, string> = { map: 'MutatingAdmissionPolicy', gatekeeper: 'Gatekeeper', kyverno: 'Kyverno', ir: 'the IR' };

function pick(o: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k]!;
  return out;
}

/** The identity a cluster gives a policy document: kind, namespace, name. */
export function policyIdentity(d: unknown): string {
  const o = isJsonObject(d as JsonValue) ? (d as JsonObject) : {};
  const md = isJsonObject(o.metadata) ? o.metadata : {};
  return `${String(o.kind ?? '')}|${String(md.namespace ?? '')}|${String(md.name ?? '')}`;
}

/** The MutatingPolicies with evaluation.mutateExisting among `docs`, written in dialect `to`. */
export function existingMpolDocuments(docs: readonly SourceDoc[], to: string, opts: { unsupported?: 'ignore' | 'warn' | 'error'; apiVersion: string }): ExistingPassthrough {
  const found = docs.filter(mutatesExisting);
  const report = new GenerationReport(TARGET_LABELS[to] ?? to, to, opts.unsupported ?? 'error');
  const documents: JsonObject[] = [];
  for (const doc of found) {
    const value = doc.value as JsonObject;
    const md = isJsonObject(value.metadata) ? value.metadata : {};
    const origin: Origin = { ...doc.spanOf(['spec', 'evaluation', 'mutateExisting']), dialect: DIALECT };
    const context = `${String(value.kind)} ${String(md.name ?? '')}`;
    if (to === DIALECT) {
      documents.push({ apiVersion: `${GROUP}/${opts.apiVersion}`, kind: value.kind!, metadata: pick(md, ['name', 'namespace', 'labels', 'annotations']), spec: value.spec! });
    } else if (to === 'map') report.refuse(cannot('a MutatingPolicy that mutates existing resources (evaluation.mutateExisting): it runs only at admission, on the object of the request'), origin, context);
    else if (to === 'gatekeeper') report.refuse(cannot('a MutatingPolicy that mutates existing resources (evaluation.mutateExisting): Gatekeeper mutates only the object of an admission request'), origin, context);
    else report.refuse(notYet('a MutatingPolicy that mutates existing resources (evaluation.mutateExisting)'), origin, context);
  }
  return { documents, diagnostics: report.diagnostics, policies: found.length };
}

/** The admission translation's documents without those a written-through policy replaces. */
export function withoutRewritten<T>(admission: readonly T[], existing: readonly unknown[]): T[] {
  const written = new Set(existing.map(policyIdentity));
  return admission.filter((d) => !written.has(policyIdentity(d)));
}
