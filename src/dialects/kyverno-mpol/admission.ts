/**
 * Kyverno's webhook validation of a MutatingPolicy (pkg/cel/policies/mpol/validate.go `Validate`), after the
 * CRD schema: the CEL compiles in Kyverno's environment (checked where the policy is read, cel-check.ts), a
 * matchConstraints with a resource rule, an evaluation mode left on, no http.* in a namespaced policy.
 * It is not kube-apiserver's MAP validation: a matchCondition name, for one, need not be a qualified name.
 */
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import type { SourceDoc } from '../../io/source.js';
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import { parse } from '../../cel/index.js';
import { isMpolDoc } from './recognize.js';
import { DIALECT } from './model.js';

const get = (v: JsonValue | undefined, ...path: string[]): JsonValue | undefined => {
  let cur = v;
  for (const k of path) cur = isJsonObject(cur) ? cur[k] : undefined;
  return cur;
};

/** compiler.ExpressionsUseHTTP: an expression that parses and names the identifier `http` anywhere. */
function usesHttp(expression: string): boolean {
  const parsed = parse(expression);
  if (!parsed.ok) return false;
  const seen = (node: unknown): boolean => {
    if (node === null || typeof node !== 'object') return false;
    if (Array.isArray(node)) return node.some(seen);
    const n = node as { kind?: unknown; name?: unknown };
    if (n.kind === 'ident' && n.name === 'http') return true;
    return Object.values(node).some(seen);
  };
  return seen(parsed.value);
}

function expressions(v: JsonValue | undefined, out: string[]): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) expressions(x, out);
  else if (isJsonObject(v)) for (const [k, x] of Object.entries(v)) if (k === 'expression' || typeof x === 'object') expressions(x, out);
  return out;
}

export function mpolAdmissionChecks(doc: SourceDoc): Diagnostic[] {
  if (!isMpolDoc(doc) || !isJsonObject(doc.value)) return [];
  const spec = doc.value.spec;
  const out: Diagnostic[] = [];
  const report = (path: (string | number)[], message: string): void => {
    out.push(diagnostic('TM2004', { phase: 'parse', dialect: DIALECT, message, span: doc.spanOf(path) }));
  };
  if (!isJsonObject(spec)) {
    report(['spec'], 'spec: Required value: spec must not be nil');
    return out;
  }
  const rules = get(spec, 'matchConstraints', 'resourceRules');
  if (!Array.isArray(rules) || rules.length === 0) {
    report(['spec', 'matchConstraints'], 'spec.matchConstraints: Required value: a matchConstraints with at least one resource rule is required');
  }
  const admission = get(spec, 'evaluation', 'admission', 'enabled') !== false;
  const mutateExisting = get(spec, 'evaluation', 'mutateExisting', 'enabled') === true;
  if (!admission && !mutateExisting) {
    report(['spec', 'evaluation'], 'spec.evaluation: Forbidden: disabling both admission and mutateExisting evaluation modes is not allowed');
  }
  const namespaced = isJsonObject(doc.value.metadata) && typeof doc.value.metadata.namespace === 'string' && doc.value.metadata.namespace !== '';
  if (namespaced && expressions(spec, []).some(usesHttp)) {
    report(['spec'], 'spec: Forbidden: http.* is not allowed in namespaced policies; set --allowHTTPInNamespacedPolicies to enable');
  }
  return out;
}
