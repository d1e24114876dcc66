/**
 * Parses MAP policies and bindings of one input together and lowers every invocation. A policy without a
 * binding never runs (no IR policy); a binding to an unknown policy is ignored, as the API server ignores it.
 */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { Policy } from '../../ir/nodes.js';
import type { SourceDoc } from '../../io/source.js';
import type { ParseOptions, ParseResult } from '../dialect.js';
import { readBinding } from './bindings.js';
import { checkPolicyCel } from './cel-check.js';
import { DIALECT, lowerInvocation } from './lower.js';
import type { MapBinding, MapPolicy } from './model.js';
import { collectCrds, collectParamObjects, kyvernoCliVariants, paramVariants } from './params.js';
import { readPolicy } from './policy.js';
import { isBindingDoc, isPolicyDoc } from './recognize.js';
import { definedTwice, readChecked } from '../read-checked.js';

export function parseMap(docs: readonly SourceDoc[], opts: ParseOptions = {}): ParseResult {
  const diagnostics: Diagnostic[] = [];
  const all = [...docs, ...(opts.siblings ?? []).filter((d) => !docs.includes(d))];
  const policies: MapPolicy[] = [];
  const bindings: MapBinding[] = [];
  const seen = new Set<SourceDoc>();
  for (const doc of all) {
    if (seen.has(doc)) continue;
    seen.add(doc);
    if (isPolicyDoc(doc)) {
      const p = readChecked(doc, diagnostics, readPolicy, checkPolicyCel);
      if (!p) continue;
      if (policies.some((q) => q.name === p.name)) {
        diagnostics.push(definedTwice(DIALECT, `MutatingAdmissionPolicy "${p.name}"`, doc));
        continue;
      }
      policies.push(p);
    } else if (isBindingDoc(doc)) {
      const b = readBinding(doc, diagnostics);
      if (b) bindings.push(b);
    }
  }
  const others = (opts.siblings ?? []).filter((d) => !isPolicyDoc(d) && !isBindingDoc(d));
  const params = collectParamObjects(others);
  const served = { runtime: opts.runtime, crds: collectCrds(others) };
  const out: Policy[] = [];
  for (const policy of policies) {
    for (const binding of bindings) {
      if (binding.policyName !== policy.name) continue;
      const variants = opts.paramResolution === 'kyverno-cli' ? kyvernoCliVariants(policy, binding, params) : paramVariants(policy, binding, params, served);
      for (const variant of variants) out.push(lowerInvocation(policy, binding, variant));
    }
  }
  return { policies: out, diagnostics };
}
