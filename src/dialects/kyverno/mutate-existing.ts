/**
 * Mutate existing (`mutate.targets`, kyverno.md §1.13), run offline against target resources the caller
 * supplies, the way the background controller runs it (pkg/background/mutate/mutate.go, engine
 * `mutateExistingResource`):
 * 1. the rule's match, exclude, context and preconditions decide on the trigger;
 * 2. each target spec (`apiVersion`, `kind`, `name`, `namespace`, `selector`), with its variables substituted
 *    against the trigger's context, selects among the supplied resources (wildcard name and namespace, an
 *    omitted one selects all; a namespaced Policy only reaches its own namespace);
 * 3. for each selected target, `target` is bound, the target's own context and preconditions are evaluated,
 *    and the rule's patch is applied to the target, with `request.*` still describing the trigger.
 *
 * Both phases reuse the ordinary Kyverno parser and interpreter on derived policy documents: phase 1 replaces
 * the rule's patch with one that records the substituted target specs in an annotation of the trigger (the
 * engine substitutes the patch only when the rule applies); phase 3 gives the rule a match on the target's kind
 * and binds `request` and `target` as supplied context values, so `{{request.object}}` keeps reading the
 * trigger while the patch lands on the target.
 */
import { diagnostic, type Diagnostic } from '../../diagnostics/diagnostic.js';
import { apply } from '../../interpreter/index.js';
import type { ApplyResult } from '../../interpreter/api.js';
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import { remappedDoc, type SourceDoc, type YamlPath } from '../../io/source.js';
import { wildcardMatch } from '../../k8s/glob.js';
import { compileLabelSelector } from '../../k8s/labels.js';
import type { LabelSelector } from '../../ir/match.js';
import type { AdmissionRequest } from '../../k8s/request.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { ParseOptions } from '../dialect.js';
import { kyvernoDocument } from './document.js';
import { parseKyverno, recognizesKyverno } from './parse.js';
import { DIALECT } from './reader.js';
import { rewriteAtHoles } from './variables.js';

/** One target a mutate-existing rule reached: the target as supplied and the rule's result on it. */
export interface MutateExistingResult {
  policy: string;
  rule: string;
  target: JsonObject;
  /** `result.object` is the mutated target; an unchanged object means the rule skipped this target. */
  result: ApplyResult;
}

export interface MutateExistingOutcome {
  results: MutateExistingResult[];
  diagnostics: Diagnostic[];
}

/** Where phase 1 records the substituted target specs on its copy of the trigger. */
const SPECS_ANNOTATION = 'mutate-existing.transmute.dev/targets';
const SELECTOR_FIELDS = ['apiVersion', 'kind', 'name', 'namespace', 'selector'] as const;
const NO_AUTOGEN = { 'pod-policies.kyverno.io/autogen-controllers': 'none' };

const obj = (v: JsonValue | undefined): JsonObject | undefined => (isJsonObject(v) ? v : undefined);
const str = (v: JsonValue | undefined): string => (typeof v === 'string' ? v : '');

/** True when the policy document has at least one rule with `mutate.targets`. */
export function hasMutateExistingRules(doc: SourceDoc): boolean {
  const rules = obj(obj(doc.value)?.spec)?.rules;
  return recognizesKyverno(doc) && Array.isArray(rules) && rules.some((r) => targetsOf(obj(r)).length > 0);
}

function targetsOf(rule: JsonObject | undefined): JsonObject[] {
  const list = obj(rule?.mutate)?.targets;
  return Array.isArray(list) ? list.filter(isJsonObject) : [];
}

/**
 * Runs every `mutate.targets` rule of the Kyverno policy documents for one trigger request over the supplied
 * target resources, in policy and rule order. Rules without targets are not run (they mutate the trigger:
 * `apply` does that). Every evaluation runs with `runtime` (default: a fresh default runtime per evaluation).
 */
export function mutateExisting(
  policyDocs: readonly SourceDoc[],
  trigger: AdmissionRequest,
  targets: readonly JsonObject[],
  opts?: ParseOptions,
  runtime?: Runtime,
): MutateExistingOutcome {
  const results: MutateExistingResult[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const doc of policyDocs) {
    if (!recognizesKyverno(doc)) continue;
    const policy = obj(doc.value)!;
    const rules = obj(policy.spec)?.rules;
    if (!Array.isArray(rules)) continue;
    rules.forEach((raw, i) => {
      const rule = obj(raw);
      const specs = targetsOf(rule);
      if (!rule || specs.length === 0) return;
      const at: YamlPath = ['spec', 'rules', i];
      const fired = triggerSpecs(doc, policy, rule, at, specs, trigger, opts, diagnostics, runtime);
      if (!fired) return;
      fired.forEach((spec, s) => {
        for (const target of selectTargets(spec, policy, targets, doc, [...at, 'mutate', 'targets', s], diagnostics)) {
          const result = mutateTarget(doc, policy, rule, at, specs[s]!, target, trigger, opts, runtime);
          results.push({ policy: str(obj(policy.metadata)?.name), rule: str(rule.name), target, result });
        }
      });
    });
  }
  return { results, diagnostics };
}

/** A policy document derived from `doc` with one rule, whose spans point at the original rule. */
function derivedDoc(doc: SourceDoc, policy: JsonObject, kind: JsonValue, rule: JsonObject, at: YamlPath): SourceDoc {
  const metadata = obj(policy.metadata) ?? {};
  const value: JsonObject = {
    ...policy,
    kind,
    metadata: { ...metadata, annotations: { ...(obj(metadata.annotations) ?? {}), ...NO_AUTOGEN } },
    spec: { ...(obj(policy.spec) ?? {}), rules: [rule] },
  };
  const mapPath = (path: YamlPath): YamlPath => (path[0] === 'spec' && path[1] === 'rules' && path[2] === 0 ? [...at, ...path.slice(3)] : path);
  return remappedDoc(doc, value, mapPath);
}

/**
 * Phase 1: whether the rule applies to the trigger, and if so its target specs with variables substituted
 * in the trigger's context. Undefined when the rule does not apply or fails (the failure is reported).
 */
function triggerSpecs(
  doc: SourceDoc,
  policy: JsonObject,
  rule: JsonObject,
  at: YamlPath,
  specs: readonly JsonObject[],
  trigger: AdmissionRequest,
  opts: ParseOptions | undefined,
  diagnostics: Diagnostic[],
  runtime: Runtime | undefined,
): JsonObject[] | undefined {
  const recorded = specs.map((spec) => {
    const out: JsonObject = {};
    for (const f of SELECTOR_FIELDS) if (hasOwn(spec, f) && spec[f] !== null) out[f] = spec[f]!;
    return out;
  });
  const probe: JsonObject = { ...rule, mutate: { patchStrategicMerge: { metadata: { annotations: { [SPECS_ANNOTATION]: recorded } } } } };
  const parsed = parseKyverno([derivedDoc(doc, policy, policy.kind ?? 'ClusterPolicy', probe, at)], opts);
  diagnostics.push(...parsed.diagnostics);
  if (parsed.policies.length === 0) return undefined;
  const r = apply(parsed.policies, trigger, { trace: false, patch: false, ...(runtime ? { runtime } : {}) });
  if (!r.allowed || r.diagnostics.some((d) => d.severity === 'error')) {
    diagnostics.push(...r.diagnostics);
    return undefined;
  }
  const annotations = obj(obj(obj(r.object ?? undefined)?.metadata)?.annotations);
  const value = annotations && hasOwn(annotations, SPECS_ANNOTATION) ? annotations[SPECS_ANNOTATION] : undefined;
  if (r.object === trigger.object || !Array.isArray(value)) return undefined;
  // The strategic merge drops empty maps (`selector: {}`): a spec may come back with fewer fields.
  return specs.map((_, s) => obj(value[s]) ?? {});
}

/** Phase 2: the supplied resources one target spec selects (mutate.go `loadTargets`, offline). */
function selectTargets(
  spec: JsonObject,
  policy: JsonObject,
  targets: readonly JsonObject[],
  doc: SourceDoc,
  at: YamlPath,
  diagnostics: Diagnostic[],
): JsonObject[] {
  const apiVersion = str(spec.apiVersion);
  const kind = str(spec.kind);
  const name = str(spec.name);
  // A namespaced Policy can only reach its own namespace (mutate.go: policy namespace overrides the spec's).
  const namespace = policy.kind === 'Policy' ? str(obj(policy.metadata)?.namespace) || 'default' : str(spec.namespace);
  let selects: (labels: JsonObject) => boolean = () => true;
  if (spec.selector !== undefined && spec.selector !== null) {
    const compiled = compileLabelSelector(spec.selector as unknown as LabelSelector, { wildcardMatchLabels: true });
    if (compiled.diagnostics.length > 0) {
      diagnostics.push(...compiled.diagnostics.map((d) => ({ ...d, span: doc.spanOf([...at, 'selector']) })));
      return [];
    }
    selects = (labels) => compiled.selector.matches(labels);
  }
  return targets.filter((t) => {
    const md = obj(t.metadata) ?? {};
    // `apiVersion: '*'` (and kind wildcards) select any version: the dclient resolves target GVKs through
    // discovery, which takes wildcards (pkg/clients/dclient `FindResources`); chainsaw existing/preconditions.
    if (apiVersion !== '' && !wildcardMatch(apiVersion, str(t.apiVersion))) return false;
    if (kind !== '' && !wildcardMatch(kind, str(t.kind))) return false;
    if (name !== '' && !wildcardMatch(name, str(md.name))) return false;
    if (namespace !== '' && !wildcardMatch(namespace, str(md.namespace))) return false;
    return selects(obj(md.labels) ?? {});
  });
}

/** Phase 3: the rule's patch applied to one target, with `target` bound and the target's own gates. */
function mutateTarget(
  doc: SourceDoc,
  policy: JsonObject,
  rule: JsonObject,
  at: YamlPath,
  spec: JsonObject,
  target: JsonObject,
  trigger: AdmissionRequest,
  opts: ParseOptions | undefined,
  runtime: Runtime | undefined,
): ApplyResult {
  const { targets: _targets, ...patch } = obj(patchOnTarget(rule).mutate) ?? {};
  const bound = { name: '', variable: { value: '' } };
  const context = [
    { ...bound, name: 'request' },
    { ...bound, name: 'target' },
    ...(Array.isArray(rule.context) ? rule.context : []),
    ...(Array.isArray(spec.context) ? spec.context : []),
  ];
  const onTarget: JsonObject = {
    name: rule.name ?? '',
    match: { any: [{ resources: { kinds: [str(target.kind) || '*'] } }] },
    context,
    ...(spec.preconditions !== undefined ? { preconditions: spec.preconditions } : {}),
    mutate: patch,
  };
  const policyName = str(obj(policy.metadata)?.name);
  const ruleName = str(rule.name);
  const requestDoc = kyvernoDocument({ object: trigger.object ?? null, oldObject: trigger.oldObject ?? null, request: trigger, params: null, namespaceObject: null, vars: {} }).request as JsonObject;
  // On DELETE Kyverno reads request.oldObject wherever request.object is written (vars.go).
  const request: JsonObject = trigger.operation === 'DELETE' ? { ...requestDoc, object: trigger.oldObject ?? null } : { ...requestDoc };
  const parsed = parseKyverno([derivedDoc(doc, policy, 'ClusterPolicy', onTarget, at)], withRuleValues(opts, policyName, ruleName, { request, target }));
  if (parsed.policies.length === 0) {
    return { object: target, patch: [], trace: [], diagnostics: parsed.diagnostics, allowed: false };
  }
  const operation = trigger.operation === 'DELETE' ? 'UPDATE' : trigger.operation;
  // The target's context is the trigger's (background/common NewBackgroundContext): so are its `images`.
  return apply(parsed.policies, { object: target, operation }, { ...(runtime ? { runtime } : {}), kyvernoContextObject: trigger.object ?? null });
}

/**
 * The mutate-existing rule with the `{{@}}` holes of its strategic merge patch reading the target: `@` is the
 * leaf's place in the target, the document the patch lands on (vars.go: prefix `target` when a target is in
 * context). Other holes are left as they are.
 */
export function patchOnTarget(rule: JsonObject): JsonObject {
  const mutate = obj(rule.mutate);
  if (mutate === undefined || !(isJsonObject(mutate.patchStrategicMerge) || Array.isArray(mutate.patchStrategicMerge))) return rule;
  return { ...rule, mutate: { ...mutate, patchStrategicMerge: atHolesOnTarget(mutate.patchStrategicMerge, ['mutate', 'patchStrategicMerge']) } };
}

/** `{{@}}` in a mutate-existing patch reads the target (vars.go: prefix `target` when a target is in context). */
function atHolesOnTarget(tree: JsonValue, prefix: readonly string[], at: string[] = []): JsonValue {
  if (typeof tree === 'string') {
    if (!/\{\{\s*@\s*\}\}/.test(tree)) return tree;
    const onRequest = rewriteAtHoles('{{@}}', prefix, at) as string;
    const onTarget = onRequest.replace(/^\{\{request\.object/, '{{target');
    return tree.replace(/\{\{\s*@\s*\}\}/g, () => onTarget);
  }
  if (Array.isArray(tree)) return tree.map((v, i) => atHolesOnTarget(v, prefix, [...at, String(i)]));
  if (isJsonObject(tree)) {
    const out: JsonObject = {};
    for (const k of Object.keys(tree)) Object.defineProperty(out, k, { value: atHolesOnTarget(tree[k]!, prefix, [...at, k]), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return tree;
}

/** The caller's Kyverno values with `extra` added to this rule's values (supplied context entries win). */
function withRuleValues(opts: ParseOptions | undefined, policy: string, rule: string, extra: JsonObject): ParseOptions {
  const conformance = (opts as { conformance?: JsonObject } | undefined)?.conformance ?? {};
  const values = obj(conformance.values) ?? {};
  const policies = Array.isArray(values.policies) ? values.policies.filter(isJsonObject) : [];
  const mine = policies.find((p) => p.name === policy);
  const rules = Array.isArray(mine?.rules) ? mine.rules.filter(isJsonObject) : [];
  const ruleValues = obj(rules.find((r) => r.name === rule)?.values) ?? {};
  const merged: JsonObject = { name: rule, values: { ...ruleValues, ...extra } };
  const newPolicy: JsonObject = { ...(mine ?? { name: policy }), rules: [...rules.filter((r) => r.name !== rule), merged] };
  const newValues: JsonObject = { ...values, policies: [...policies.filter((p) => p !== mine), newPolicy] };
  return { ...(opts ?? {}), conformance: { ...conformance, values: newValues } } as ParseOptions;
}

/** A diagnostic for a target file that holds something other than Kubernetes objects. */
export function notATarget(doc: SourceDoc): Diagnostic {
  return diagnostic('TM2002', { phase: 'parse', message: 'a target resource must be a Kubernetes object (a mapping with apiVersion and kind)', span: doc.spanOf([]), dialect: DIALECT });
}
