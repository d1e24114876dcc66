/**
 * Autogen for Pod controllers (pkg/autogen/v1: computeRules, CanAutoGen, generateRule, updateFields): a policy
 * whose rules match Pods also gets, after all of its own rules, `autogen-<name>` rules for DaemonSet,
 * Deployment, Job, StatefulSet, ReplicaSet and ReplicationController (patterns under `spec.template`) and
 * `autogen-cronjob-<name>` rules for CronJob (under `spec.jobTemplate.spec.template`), restricted by the
 * `pod-policies.kyverno.io/autogen-controllers` annotation (`none` turns it off).
 *
 * Works on the policy's JSON, before IR construction, so a generated rule is parsed exactly like a rule the
 * user wrote; `withAutogenRules` wraps the SourceDoc so spans of generated rules point at their Pod rule.
 */
import { hasOwn, isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { SourceDoc, YamlPath } from '../../io/source.js';
import { parseKindSelector } from '../../k8s/kinds.js';

export const AUTOGEN_ANNOTATION = 'pod-policies.kyverno.io/autogen-controllers';

/** autogen/v1 PodControllers (the annotation's default). */
const POD_CONTROLLERS = ['DaemonSet', 'Deployment', 'Job', 'StatefulSet', 'ReplicaSet', 'ReplicationController', 'CronJob'];
const POD_CONTROLLERS_AND_POD = new Set([...POD_CONTROLLERS, 'Pod']);
/** generateRuleForControllers' `controllersList`: every controller but CronJob, which gets its own rule. */
const NON_CRONJOB = new Set(['DaemonSet', 'Deployment', 'Job', 'StatefulSet', 'ReplicaSet', 'ReplicationController']);
const ALL_NON_CRONJOB = 'DaemonSet,Deployment,Job,StatefulSet,ReplicaSet,ReplicationController';

/** autogen/v1/internal ConvertKindsToGVK. */
const GVK: Record<string, string> = {
  DaemonSet: 'apps/v1/DaemonSet',
  Deployment: 'apps/v1/Deployment',
  Job: 'batch/v1/Job',
  StatefulSet: 'apps/v1/StatefulSet',
  ReplicaSet: 'apps/v1/ReplicaSet',
  ReplicationController: 'v1/ReplicationController',
  CronJob: 'batch/v1/CronJob',
  Pod: 'v1/Pod',
};

/** autogen/v1 updateFields: a raw text replacement over the whole serialized rule, in this order. */
const POD_REPLACEMENTS: ReadonlyArray<readonly [string, string]> = [
  ['request.object.spec', 'request.object.spec.template.spec'],
  ['request.oldObject.spec', 'request.oldObject.spec.template.spec'],
  ['request.object.metadata', 'request.object.spec.template.metadata'],
  ['request.oldObject.metadata', 'request.oldObject.spec.template.metadata'],
];
const CRONJOB_REPLACEMENTS: ReadonlyArray<readonly [string, string]> = [
  ['request.object.spec', 'request.object.spec.jobTemplate.spec.template.spec'],
  ['request.oldObject.spec', 'request.oldObject.spec.jobTemplate.spec.template.spec'],
  ['request.object.metadata', 'request.object.spec.jobTemplate.spec.template.metadata'],
  ['request.oldObject.metadata', 'request.oldObject.spec.jobTemplate.spec.template.metadata'],
];
/** Validate CEL rules see `object` as well as `request.object` (updateFields' cel flag). */
const POD_CEL_REPLACEMENTS = POD_REPLACEMENTS.map(([a, b]) => [a.slice('request.'.length), b.slice('request.'.length)] as const);
const CRONJOB_CEL_REPLACEMENTS = CRONJOB_REPLACEMENTS.map(([a, b]) => [a.slice('request.'.length), b.slice('request.'.length)] as const);

/** One rule of the computed list: the rule and the index, in `spec.rules`, of the rule it is or came from. */
export interface ComputedRule {
  rule: JsonValue;
  source: number;
  generated: boolean;
}

const obj = (v: JsonValue | undefined): JsonObject | undefined => (isJsonObject(v) ? v : undefined);
const list = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);
const present = (v: JsonValue | undefined): boolean => v !== undefined && v !== null;
const kindsOf = (description: JsonValue | undefined): string[] =>
  list(obj(description)?.kinds).filter((k): k is string => typeof k === 'string');

/** pkg/utils/kube ContainsKind: the kind part of any selector (`v1/Pod`, `Pod/status`) equals `kind`. */
function containsKind(kinds: readonly string[], kind: string): boolean {
  return kinds.some((k) => parseKindSelector(k).kind === kind);
}

/** The ResourceDescriptions (`resources`) of a match or exclude block: flat, `any[]` and `all[]`. */
function descriptions(block: JsonValue | undefined): (JsonValue | undefined)[] {
  const b = obj(block);
  if (!b) return [];
  return [b.resources, ...list(b.any).map((f) => obj(f)?.resources), ...list(b.all).map((f) => obj(f)?.resources)];
}

/** MatchResources.GetKinds: every kind of the block. */
function blockKinds(block: JsonValue | undefined): string[] {
  return descriptions(block).flatMap(kindsOf);
}

/**
 * autogen/v1 CanAutoGen: off for the whole policy when a rule generates, uses JSON patches, or has a filter
 * autogen cannot carry to controllers (name(s), selector, annotations, Pod mixed with other kinds); on only
 * when some filter names Pod or a controller exactly.
 */
function canAutogen(rules: readonly JsonValue[]): boolean {
  let needed = false;
  for (const raw of rules) {
    const rule = obj(raw) ?? {};
    if (present(rule.generate)) return false;
    const mutate = obj(rule.mutate);
    if (mutate) {
      if (typeof mutate.patchesJson6902 === 'string' && mutate.patchesJson6902 !== '') return false;
      if (list(mutate.foreach).some((f) => typeof obj(f)?.patchesJson6902 === 'string' && obj(f)!.patchesJson6902 !== '')) return false;
    }
    for (const d of [...descriptions(rule.match), ...descriptions(rule.exclude)]) {
      const desc = obj(d) ?? {};
      const kinds = kindsOf(desc);
      const hasName = typeof desc.name === 'string' && desc.name !== '';
      if (hasName || list(desc.names).length > 0 || present(desc.selector) || present(desc.annotations)) return false;
      if (kinds.length > 1 && containsKind(kinds, 'Pod')) return false;
      // sets.HasAny over the raw strings: `v1/Pod` alone does not make autogen needed.
      if (kinds.some((k) => POD_CONTROLLERS_AND_POD.has(k))) needed = true;
    }
  }
  return needed;
}

/** autogen/v1 splitKinds: split on commas and sort. */
function splitKinds(controllers: string): string[] {
  return controllers.split(',').sort();
}

function stripCronJob(controllers: string): string {
  return splitKinds(controllers)
    .filter((c) => c !== 'CronJob')
    .join(',');
}

function autogenName(prefix: string, name: string): string {
  const full = `${prefix}-${name}`;
  return full.length > 63 ? full.slice(0, 63) : full;
}

const isAutogenName = (name: JsonValue | undefined): boolean => typeof name === 'string' && name.startsWith('autogen-');

type FilterRewrite = (filters: JsonValue[], kinds: string[]) => JsonValue[];

function withKinds(filter: JsonValue, kinds: string[]): JsonValue {
  const f = obj(filter);
  if (!f) return filter;
  return { ...f, resources: { ...(obj(f.resources) ?? {}), kinds: kinds.map((k) => GVK[k] ?? k) } };
}

/** getAnyAllAutogenRule: only the filters that name Pod get the controllers' kinds. */
const podFiltersOnly: FilterRewrite = (filters, kinds) => filters.map((f) => (containsKind(kindsOf(obj(f)?.resources), 'Pod') ? withKinds(f, kinds) : f));
/** The CronJob rule rewrites every filter. */
const everyFilter: FilterRewrite = (filters, kinds) => filters.map((f) => withKinds(f, kinds));

function rewriteMatch(block: JsonObject, kinds: string[], rewrite: FilterRewrite, exclude: boolean): JsonObject {
  if (list(block.any).length > 0) return { ...block, any: rewrite(list(block.any), kinds) };
  if (list(block.all).length > 0) return { ...block, all: rewrite(list(block.all), kinds) };
  const resources = obj(block.resources) ?? {};
  // An exclude block keeps its (empty) kinds; a match block always gets the controllers.
  if (exclude && kindsOf(resources).length === 0) return block;
  return { ...block, resources: { ...resources, kinds: kinds.map((k) => GVK[k] ?? k) } };
}

/** autogen/v1 generateRule: the rule renamed, retargeted to `kinds`, its patterns moved under `spec.<tplKey>`. */
function generateRule(name: string, rule: JsonObject | undefined, tplKey: string, kinds: string[], rewrite: FilterRewrite): JsonObject | undefined {
  if (!rule) return undefined;
  const out: JsonObject = { ...rule, name };
  out.match = rewriteMatch(obj(rule.match) ?? {}, kinds, rewrite, false);
  const exclude = obj(rule.exclude);
  if (exclude) out.exclude = rewriteMatch(exclude, kinds, rewrite, true);
  const mutate = obj(rule.mutate);
  if (mutate) {
    if (present(mutate.patchStrategicMerge)) {
      // Every other mutate field (targets, foreach, ...) is dropped from the generated rule.
      out.mutate = { patchStrategicMerge: { spec: { [tplKey]: mutate.patchStrategicMerge! } } };
      return out;
    }
    const foreach = list(mutate.foreach);
    if (foreach.length > 0) {
      // Only list, context and preconditions survive; order and nested foreach are dropped.
      out.mutate = {
        foreach: foreach.map((raw) => {
          const f = obj(raw) ?? {};
          const entry: JsonObject = {};
          if (present(f.list)) entry.list = f.list!;
          if (list(f.context).length > 0) entry.context = f.context!;
          if (present(f.preconditions)) entry.preconditions = f.preconditions!;
          entry.patchStrategicMerge = { spec: { [tplKey]: f.patchStrategicMerge ?? null } };
          return entry;
        }),
      };
      return out;
    }
  }
  // Validate and verifyImages rules are generated upstream too; this dialect reads only mutate rules, so
  // they are carried unchanged. A mutate rule with neither patch form generates nothing.
  if (present(rule.validate) || present(rule.verifyImages)) return out;
  return undefined;
}

/** generateRuleForControllers: the `autogen-<name>` rule, when the rule matches Pods. */
function controllersRule(rule: JsonObject, controllers: string): JsonObject | undefined {
  if (isAutogenName(rule.name) || controllers === '') return undefined;
  const excludeKinds = blockKinds(rule.exclude);
  if (!containsKind(blockKinds(rule.match), 'Pod') || (excludeKinds.length > 0 && !containsKind(excludeKinds, 'Pod'))) return undefined;
  let effective = controllers;
  if (controllers === 'all') effective = ALL_NON_CRONJOB;
  else if (controllers !== 'none') {
    const validated = splitKinds(controllers).filter((c) => NON_CRONJOB.has(c));
    if (validated.length > 0) effective = validated.join(',');
  }
  return generateRule(autogenName('autogen', String(rule.name ?? '')), rule, 'template', splitKinds(effective), podFiltersOnly);
}

/** generateCronJobRule: built from the controllers rule, one level deeper. */
function cronJobRule(rule: JsonObject, controllers: string): JsonObject | undefined {
  if (!controllers.includes('CronJob') && !controllers.includes('all')) return undefined;
  return generateRule(autogenName('autogen-cronjob', String(rule.name ?? '')), controllersRule(rule, controllers), 'jobTemplate', ['CronJob'], everyFilter);
}

/** rule.go createRule + convertRule: only the fields autogen carries, then the text replacement. */
function finishRule(rule: JsonObject, target: 'Pod' | 'Cronjob'): JsonValue {
  const kept: JsonObject = { name: rule.name ?? '' };
  if (isJsonObject(rule.match) && Object.keys(rule.match).length > 0) kept.match = rule.match;
  if (isJsonObject(rule.exclude) && Object.keys(rule.exclude).length > 0) kept.exclude = rule.exclude;
  if (list(rule.celPreconditions).length > 0) kept.celPreconditions = rule.celPreconditions!;
  if (list(rule.context).length > 0) kept.context = rule.context!;
  if (hasConditions(rule.preconditions)) kept.preconditions = rule.preconditions!;
  if (isJsonObject(rule.mutate) && Object.keys(rule.mutate).length > 0) kept.mutate = rule.mutate;
  if (isJsonObject(rule.validate) && Object.keys(rule.validate).length > 0) kept.validate = rule.validate;
  if (list(rule.verifyImages).length > 0) kept.verifyImages = rule.verifyImages!;
  if (present(rule.skipBackgroundRequests)) kept.skipBackgroundRequests = rule.skipBackgroundRequests!;
  const cel = isJsonObject(rule.validate) && present(rule.validate.cel);
  const replacements = target === 'Pod' ? (cel ? POD_CEL_REPLACEMENTS : POD_REPLACEMENTS) : cel ? CRONJOB_CEL_REPLACEMENTS : CRONJOB_REPLACEMENTS;
  let text = JSON.stringify(kept);
  for (const [from, to] of replacements) text = text.split(from).join(to);
  return JSON.parse(text) as JsonValue;
}

function hasConditions(v: JsonValue | undefined): boolean {
  if (Array.isArray(v)) return v.length > 0;
  const o = obj(v);
  return o !== undefined && (list(o.any).length > 0 || list(o.all).length > 0);
}

/** The controllers autogen runs for (computeRules): the annotation when autogen is possible, else `none`. */
function controllersFor(policy: JsonObject, rules: readonly JsonValue[]): string {
  if (!canAutogen(rules)) return 'none';
  const annotations = obj(obj(policy.metadata)?.annotations);
  const requested = annotations && hasOwn(annotations, AUTOGEN_ANNOTATION) ? annotations[AUTOGEN_ANNOTATION] : undefined;
  if (requested === undefined || requested === null) return POD_CONTROLLERS.join(',');
  return String(requested);
}

/**
 * autogen/v1 computeRules: the policy's rules followed by the generated ones. When anything is generated,
 * rules the user named `autogen-*` are dropped (Kyverno regenerates them).
 */
export function computeRules(policy: JsonObject): ComputedRule[] {
  const rules = list(obj(policy.spec)?.rules);
  const original = rules.map((rule, source) => ({ rule, source, generated: false }));
  const controllers = controllersFor(policy, rules);
  if (controllers === 'none') return original;
  const generated: ComputedRule[] = [];
  rules.forEach((raw, source) => {
    const rule = obj(raw);
    if (!rule) return;
    const forControllers = controllersRule(rule, stripCronJob(controllers));
    if (forControllers) generated.push({ rule: finishRule(forControllers, 'Pod'), source, generated: true });
    const forCronJob = cronJobRule(rule, controllers);
    if (forCronJob) generated.push({ rule: finishRule(forCronJob, 'Cronjob'), source, generated: true });
  });
  if (generated.length === 0) return original;
  return [...original.filter((r) => !isAutogenName(obj(r.rule)?.name)), ...generated];
}

/**
 * The policy document with `spec.rules` replaced by the computed rules, or the document itself when autogen
 * changes nothing. Spans inside a rule map to the rule it came from (a generated rule's paths fall back to the
 * nearest node of its Pod rule; offsets inside its strings, which the text replacement moved, to the scalar).
 */
export function withAutogenRules(doc: SourceDoc): SourceDoc {
  const policy = obj(doc.value);
  const spec = obj(policy?.spec);
  if (!policy || !spec || !Array.isArray(spec.rules)) return doc;
  const computed = computeRules(policy);
  const unchanged = computed.length === spec.rules.length && computed.every((c, i) => !c.generated && c.source === i);
  if (unchanged) return doc;
  const value: JsonObject = { ...policy, spec: { ...spec, rules: computed.map((c) => c.rule) } };
  const mapPath = (path: YamlPath): { path: YamlPath; generated: boolean } => {
    if (path.length < 3 || path[0] !== 'spec' || path[1] !== 'rules' || typeof path[2] !== 'number') return { path, generated: false };
    const c = computed[path[2]];
    if (!c) return { path, generated: false };
    return { path: ['spec', 'rules', c.source, ...path.slice(3)], generated: c.generated };
  };
  return {
    file: doc.file,
    index: doc.index,
    value,
    spanOf: (path) => doc.spanOf(mapPath(path).path),
    keySpanOf: (path) => doc.keySpanOf(mapPath(path).path),
    spanInString: (path, start, end) => {
      const m = mapPath(path);
      return m.generated ? doc.spanOf(m.path) : doc.spanInString(m.path, start, end);
    },
  };
}
