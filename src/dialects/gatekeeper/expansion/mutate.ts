/**
 * The mutation step of expansion, on transmute's interpreter. Gatekeeper mutators run as the mutation system
 * runs them on a Mutable: the object's `source`, no admission operation (so an applyTo limited to CREATE does
 * not apply, one naming CREATE and UPDATE does), the Namespace object, to their fix-point.
 *
 * Kyverno policies, MutatingPolicies and MutatingAdmissionPolicies given with them run afterwards, as the
 * cluster would run them when the object is created (a CREATE request): on the generator when it is admitted,
 * and on each generated resource when its controller creates it. Gatekeeper itself never does this; it lets
 * `transmute expand` show what the other engines' webhooks would add to the Pods a Deployment creates.
 */
import type { Diagnostic } from '../../../diagnostics/diagnostic.js';
import { apply, type ApplyEnv } from '../../../interpreter/index.js';
import { isJsonObject, type JsonObject } from '../../../ir/json.js';
import type { Policy } from '../../../ir/nodes.js';
import type { AdmissionRequest, Operation } from '../../../k8s/request.js';
import type { Built } from './resultant.js';
import type { Mutable, MutateFn } from './system.js';
import { namespaceName } from './resultant.js';

export interface ExpansionPolicies {
  /** Gatekeeper mutators (fix-point policies of the gatekeeper dialect). */
  gatekeeper: readonly Policy[];
  /** Policies of the other dialects, run as a CREATE admission of each object. */
  admission: readonly Policy[];
}

/** Splits parsed policies by the engine that runs them. */
export function splitPolicies(policies: readonly Policy[]): ExpansionPolicies {
  return {
    gatekeeper: policies.filter((p) => p.origin.dialect === 'gatekeeper'),
    admission: policies.filter((p) => p.origin.dialect !== 'gatekeeper'),
  };
}

function firstError(diagnostics: readonly Diagnostic[]): string {
  return diagnostics.find((d) => d.severity === 'error')?.message ?? 'the request was denied';
}

/** A MutateFn over `policies`; `env` carries external data and the like to the interpreter. */
export function interpreterMutator(policies: ExpansionPolicies, env: ApplyEnv = {}): MutateFn {
  const gatekeeper = [...policies.gatekeeper];
  const admission = [...policies.admission];
  return (m: Mutable): Built<JsonObject> => {
    let object = m.object;
    if (gatekeeper.length > 0) {
      const request: AdmissionRequest = {
        object,
        // Gatekeeper's "no admission operation" (audit, expansion, gator), which Operation does not list.
        operation: (m.operation ?? '') as Operation,
        userInfo: { username: m.username },
        namespaceObject: m.namespace,
        source: m.source,
      };
      const r = apply(gatekeeper, request, { ...env, trace: false });
      if (!r.allowed) return { ok: false, error: firstError(r.diagnostics) };
      if (isJsonObject(r.object)) object = r.object;
    }
    if (admission.length > 0) {
      const ns = m.namespace !== null && namespaceName(m.namespace) !== '' ? m.namespace : null;
      const request: AdmissionRequest = { object, operation: 'CREATE', userInfo: {}, namespaceObject: ns };
      const r = apply(admission, request, { ...env, trace: false });
      if (!r.allowed) return { ok: false, error: firstError(r.diagnostics) };
      if (isJsonObject(r.object)) object = r.object;
    }
    return { ok: true, value: object };
  };
}
