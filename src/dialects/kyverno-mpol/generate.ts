/**
 * IR to Kyverno MutatingPolicy (policies.kyverno.io): the CEL policies of map/emit-policies.ts written as
 * MutatingPolicy documents, which carry MAP's matchConstraints, matchConditions, variables and mutations in
 * one resource (no binding: a second kind clause becomes a match condition), plus Kyverno's own fields:
 * - a policy read from a namespaced source (Kyverno `Policy`, NamespacedMutatingPolicy) is a
 *   NamespacedMutatingPolicy in that namespace;
 * - autogen: Kyverno would add Pod-controller variants to a policy that matches exactly Pods
 *   (mpol/autogen.go). The IR already holds every variant the source had (Kyverno autogen rules, MutatingPolicy
 *   autogen variants), so a MutatingPolicy read back keeps its own `autogen.podControllers` setting with its
 *   variants folded into it, and any other Pod policy is written with `controllers: []` so that Kyverno adds
 *   nothing the source did not do.
 * Kyverno mutate-existing rules (`mutate.targets`) are not in the IR: generate-existing.ts writes them from
 * the source documents (`translateMutateExistingRules`).
 */
import { layoutCel } from '../../cel/layout.js';
import type { JsonObject, JsonValue } from '../../ir/json.js';
import type { MatchClause, Policy } from '../../ir/nodes.js';
import { toYamlDocuments } from '../../io/yaml-dump.js';
import type { GenerateOptions, GenerateResult } from '../dialect.js';
import { GenerationReport } from '../generate-report.js';
import { MPOL_TARGET } from '../map/cel-target.js';
import { emitCelPolicies, type EmittedPolicy, type Named } from '../map/emit-policies.js';
import { resourceRuleTest } from '../map/group-match.js';
import { DIALECT, GROUP, POD_CONTROLLERS } from './model.js';

/** The versions MutatingPolicy is served at, newest first (v1beta1 is the storage version). */
export const MPOL_API_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'] as const;

/** The rule name lower.ts gives an autogen variant: `mutations (autogen <config>)`. */
const VARIANT = /^mutations \(autogen (defaults|cronjobs)\)$/;

interface Namespaced {
  namespace: string;
  name: string;
}

/** The namespace clause a namespaced source's policy carries, and the policy without it. */
function namespacedSource(p: Policy): { policy: Policy; ns: Namespaced } | undefined {
  const isNsClause = (c: MatchClause, ns: string): boolean => c.scope === 'Namespaced' && c.namespaces?.length === 1 && c.namespaces[0] === ns && Object.keys(c).length === 2;
  if (p.origin.dialect === 'kyverno') {
    const slash = p.id.indexOf('/');
    const ns = p.id.slice(0, slash);
    const any = p.match.any ?? [];
    if (slash < 0 || p.match.all || p.match.exclude || any.length !== 1 || !isNsClause(any[0]!, ns)) return undefined;
    const { any: _any, ...rest } = p.match;
    return { policy: { ...p, match: rest }, ns: { namespace: ns, name: p.id.slice(slash + 1) } };
  }
  if (p.origin.dialect === DIALECT) {
    const colon = p.id.indexOf(':');
    if (colon < 0) return undefined;
    const ns = p.id.slice(0, colon);
    const all = p.match.all ?? [];
    const at = all.findIndex((c) => isNsClause(c, ns));
    if (at < 0) return undefined;
    return { policy: { ...p, match: { ...p.match, all: all.filter((_, i) => i !== at) } }, ns: { namespace: ns, name: p.id.slice(colon + 1) } };
  }
  return undefined;
}

/** Whether Kyverno would autogen this policy: it matches exactly core v1 pods (autogen.go canAutoGen). */
function autogenEligible(e: EmittedPolicy): boolean {
  const m = e.matchConstraints;
  const rules = m.resourceRules as JsonObject[] | undefined;
  if (!rules || rules.length !== 1 || m.excludeResourceRules || m.namespaceSelector || m.objectSelector) return false;
  const r = rules[0]!;
  const one = (xs: JsonValue | undefined, v: string) => Array.isArray(xs) && xs.length === 1 && xs[0] === v;
  return !r.resourceNames && one(r.apiGroups, '') && one(r.apiVersions, 'v1') && one(r.resources, 'pods');
}

/** The controllers of an autogen variant's resource rules. */
function variantControllers(p: Policy): string[] {
  return [...(p.match.all ?? []), ...(p.match.any ?? [])].flatMap((c) => (c.resources ?? []).flatMap((r) => r.resources)).filter((r) => POD_CONTROLLERS.includes(r));
}

function document(e: EmittedPolicy, apiVersion: string, ns: Namespaced | undefined, controllers: string[] | undefined): JsonObject {
  const spec: JsonObject = { matchConstraints: e.matchConstraints };
  const conditions: Named[] = [...e.conditions];
  if (e.bindingMatch) {
    // MAP would put a second kind clause in the binding; a MutatingPolicy has no binding, so it is a condition.
    const rules = (e.bindingMatch.resourceRules as JsonObject[] | undefined) ?? [];
    const tests = rules.map((r) => resourceRuleTest(r));
    conditions.unshift({ name: 'resources', expression: tests.length === 1 ? tests[0]! : tests.map((t) => `(${t})`).join(' || ') });
  }
  if (e.variables.length > 0) spec.variables = e.variables.map((v) => ({ name: v.name, expression: layoutCel(v.expression) }));
  if (conditions.length > 0) spec.matchConditions = conditions.map((c) => ({ name: c.name, expression: layoutCel(c.expression) }));
  spec.mutations = e.mutations.map((m): JsonObject =>
    m.patchType === 'ApplyConfiguration' ? { patchType: m.patchType, applyConfiguration: { expression: layoutCel(m.expression) } } : { patchType: m.patchType, jsonPatch: { expression: layoutCel(m.expression) } },
  );
  spec.failurePolicy = e.failurePolicy;
  spec.reinvocationPolicy = e.reinvocationPolicy;
  if (controllers !== undefined) spec.autogen = { podControllers: { controllers } };
  // A source that named no namespace (Semantics.namespace) gives a document that names none: it installs where it is created.
  const metadata: JsonObject = !ns ? { name: e.name } : e.source.semantics.namespace === 'implied' ? { name: ns.name } : { name: ns.name, namespace: ns.namespace };
  return { apiVersion, kind: ns ? 'NamespacedMutatingPolicy' : 'MutatingPolicy', metadata, spec };
}

export function generateMpol(policies: readonly Policy[], opts: GenerateOptions = {}): GenerateResult {
  const report = new GenerationReport('Kyverno MutatingPolicy', DIALECT, opts.unsupported ?? 'error');
  const apiVersion = `${GROUP}/${opts.apiVersion ?? MPOL_API_VERSIONS[0]}`;
  // Autogen variants of a MutatingPolicy are folded back into their policy's autogen setting.
  const folded = new Map<string, Set<string>>();
  const own: Policy[] = [];
  const namespaces = new Map<string, Namespaced>();
  for (const p of policies) {
    if (p.origin.dialect === DIALECT && p.rules.length === 1 && VARIANT.test(p.rules[0]!.name)) {
      const set = folded.get(p.id) ?? folded.set(p.id, new Set()).get(p.id)!;
      for (const c of variantControllers(p)) set.add(c);
      continue;
    }
    const n = namespacedSource(p);
    if (n) namespaces.set(n.policy.id, n.ns);
    own.push(n ? n.policy : p);
  }
  const docs: JsonObject[] = [];
  for (const e of emitCelPolicies(own, MPOL_TARGET, report, opts.mutationAnnotations ? { mutationAnnotations: opts.mutationAnnotations } : {})) {
    const fromMpol = e.source.origin.dialect === DIALECT ? folded.get(e.source.id) : undefined;
    const controllers = autogenEligible(e) ? (fromMpol ? POD_CONTROLLERS.filter((c) => fromMpol.has(c)) : []) : undefined;
    docs.push(document(e, apiVersion, namespaces.get(e.source.id), controllers));
  }
  report.finish(docs.length, policies.length, policies[0]?.origin);
  return { documents: docs, text: docs.length > 0 ? toYamlDocuments(docs) : '', diagnostics: report.diagnostics };
}
