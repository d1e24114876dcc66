/**
 * Kyverno ClusterPolicy / Policy (kyverno.io v1, v2beta1) into IR policies, one per document, in the order
 * given (the CLI applies policies in load order; rules run in order, each on the previous rule's output).
 * Only mutate rules are read: validate/generate/verifyImages rules do not change the admitted object, and
 * `mutate.targets` rules (mutate existing) never run on the admission request itself.
 */
import { valueTree } from './values-tree.js';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { MatchSpec, Op, Policy, Rule, Semantics } from '../../ir/nodes.js';
import type { SourceDoc, YamlPath } from '../../io/source.js';
import type { ParseOptions, ParseResult } from '../dialect.js';
import { withAutogenRules } from './autogen.js';
import { contextLets, type ContextData } from './context.js';
import { forEachOps } from './foreach.js';
import { matchSpec } from './match.js';
import { patchKinds, patchOps } from './patches.js';
import { preconditionsGuard } from './preconditions.js';
import { Reader } from './reader.js';

const API_VERSIONS = new Set(['kyverno.io/v1', 'kyverno.io/v2beta1', 'kyverno.io/v2']);
const KINDS = new Set(['ClusterPolicy', 'Policy']);

export function recognizesKyverno(doc: SourceDoc): boolean {
  const v = doc.value;
  return isJsonObject(v) && typeof v.apiVersion === 'string' && API_VERSIONS.has(v.apiVersion) && typeof v.kind === 'string' && KINDS.has(v.kind);
}

/** cli.kyverno.io Values, when the caller supplies them (`ParseOptions.conformance.values`). */
function valuesOf(opts: ParseOptions | undefined): JsonObject | undefined {
  const conformance = (opts as { conformance?: JsonObject } | undefined)?.conformance;
  const values = conformance?.values;
  return isJsonObject(values) ? values : undefined;
}

/**
 * The value a context entry takes from the Values: the variables the global values and then the rule's values
 * define, dotted keys nested as Kyverno's JSON context nests them (values-tree.ts).
 */
function contextData(values: JsonObject | undefined, policy: string, rule: string): ContextData {
  if (!values) return () => undefined;
  const global = isJsonObject(values.globalValues) ? values.globalValues : {};
  const p = (Array.isArray(values.policies) ? values.policies : []).find((x) => isJsonObject(x) && x.name === policy) as JsonObject | undefined;
  const r = (Array.isArray(p?.rules) ? p.rules : []).find((x) => isJsonObject(x) && x.name === rule) as JsonObject | undefined;
  const ruleValues = isJsonObject(r?.values) ? r.values : {};
  const tree = valueTree(ruleValues, valueTree(global));
  return (name) => (Object.prototype.hasOwnProperty.call(tree, name) ? tree[name] : undefined);
}

const ELEMENT_VARIABLE = /\{\{-?\s*element/;

export function parseKyverno(docs: readonly SourceDoc[], opts?: ParseOptions): ParseResult {
  const policies: Policy[] = [];
  const diagnostics: Diagnostic[] = [];
  const values = valuesOf(opts);
  for (const doc of docs) {
    // Autogen (pkg/autogen/v1 computeRules): Pod rules also run on Pod controllers, as generated rules read
    // like any other. A generated rule repeats its Pod rule's problems at the same place: report them once.
    const before = diagnostics.length;
    const p = parsePolicy(new Reader(withAutogenRules(doc)), values, diagnostics);
    diagnostics.splice(before, diagnostics.length - before, ...uniqueDiagnostics(diagnostics.slice(before)));
    if (p) policies.push(p);
  }
  return { policies, diagnostics };
}

function parsePolicy(r: Reader, values: JsonObject | undefined, diagnostics: Diagnostic[]): Policy | undefined {
  const name = r.string(['metadata', 'name']);
  if (!name) {
    diagnostics.push(r.error('TM2005', 'metadata.name is required', ['metadata']));
    return undefined;
  }
  const namespaced = r.get(['kind']) === 'Policy';
  const namespace = r.string(['metadata', 'namespace']) ?? 'default';
  const origin = r.origin([]);
  // A namespaced Policy only sees namespaced resources of its own namespace (engine MatchPolicyContext).
  const match: MatchSpec = namespaced
    ? { any: [{ namespaces: [namespace], scope: 'Namespaced' }], globs: 'wildcard', origin }
    : { globs: 'wildcard', origin };
  const rules: Rule[] = [];
  const before = diagnostics.length;
  r.list(['spec', 'rules']).forEach((raw, i) => {
    const at: YamlPath = ['spec', 'rules', i];
    if (!isJsonObject(raw) || raw.mutate === undefined || raw.mutate === null) return;
    if (isJsonObject(raw.mutate) && Array.isArray(raw.mutate.targets) && raw.mutate.targets.length > 0) return;
    const rule = parseRule(r, at, contextData(values, name, typeof raw.name === 'string' ? raw.name : ''), diagnostics);
    if (rule) rules.push(rule);
  });
  if (diagnostics.slice(before).some((d) => d.severity === 'error')) return undefined;
  const failurePolicy = r.get(['spec', 'failurePolicy']) === 'Ignore' ? 'ignore' : 'fail';
  const semantics: Semantics = { order: 'sequential', failurePolicy };
  // The namespace `default` stands for the one the policy is created in (see Semantics.namespace).
  if (namespaced && r.string(['metadata', 'namespace']) === undefined) semantics.namespace = 'implied';
  if (r.get(['spec', 'applyRules']) === 'One') semantics.applyRules = 'one';
  return {
    id: namespaced ? `${namespace}/${name}` : name,
    match,
    guards: [],
    rules,
    semantics,
    origin,
  };
}

function parseRule(r: Reader, at: YamlPath, data: ContextData, diagnostics: Diagnostic[]): Rule | undefined {
  const name = r.string([...at, 'name']) ?? '';
  const origin = r.origin(at);
  const match = matchSpec(r, at, diagnostics);
  if (!match) return undefined;
  const mutate: YamlPath = [...at, 'mutate'];
  const kinds = patchKinds(r, mutate);
  const foreach = r.get([...mutate, 'foreach']);
  const hasForeach = Array.isArray(foreach) && foreach.length > 0;
  if (kinds.length + (hasForeach ? 1 : 0) > 1) {
    diagnostics.push(r.error('TM2004', 'only one of foreach, patchStrategicMerge or patchesJson6902 is allowed in a mutate rule', mutate));
    return undefined;
  }
  const outside = withoutForeach(r.get(at) ?? null);
  if (ELEMENT_VARIABLE.test(JSON.stringify(outside))) {
    diagnostics.push(r.error('TM2004', "variable 'element' present outside of foreach", mutate));
    return undefined;
  }
  const lets = contextLets(r, [...at, 'context'], data, diagnostics);
  const work: Op[] = hasForeach
    ? forEachOps(r, [...mutate, 'foreach'], 0, { data, numbered: /element(Index)?\d/.test(JSON.stringify(foreach)) }, diagnostics)
    : patchOps(r, mutate, false, diagnostics);
  const guard = preconditionsGuard(r, [...at, 'preconditions'], diagnostics);
  const rule: Rule = { name, match, guards: [], body: [], origin };
  if (lets.length === 0) {
    // Without context the preconditions can gate the rule itself (they see only the request).
    if (guard) rule.guards.push(guard);
    rule.body = work;
  } else {
    rule.body = guard ? [...lets, { kind: 'when', guard, then: work, origin: guard.origin }] : [...lets, ...work];
  }
  return rule;
}


function uniqueDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const key = `${d.code}|${d.message}|${JSON.stringify(d.span ?? null)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The rule without `mutate.foreach`, where `element` variables are legal. */
function withoutForeach(rule: JsonValue): JsonValue {
  if (!isJsonObject(rule) || !isJsonObject(rule.mutate)) return rule;
  const { foreach: _ignored, ...mutate } = rule.mutate;
  return { ...rule, mutate };
}
