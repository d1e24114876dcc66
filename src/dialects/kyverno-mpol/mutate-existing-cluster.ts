/**
 * Mutate existing for MutatingPolicy as Kyverno's background controller runs it in a cluster
 * (pkg/background/mpol/processor.go, pkg/policy/mpol.go, engine MatchesMutateExisting): UpdateRequests from
 * admitted requests and from policy events, the targets each lists, and the writes. See mutate-existing.ts for
 * the whole picture and the shared part.
 */
import type { KyvernoDataProvider } from '../../cel/lib/kyverno-context.js';
import { isJsonObject, jsonEqual, type JsonObject } from '../../ir/json.js';
import { compileLabelSelector } from '../../k8s/labels.js';
import type { AdmissionRequest } from '../../k8s/request.js';
import { builtinResources, gvkOf, kindOfResource } from '../../k8s/resources.js';
import type { MatchResources } from '../map/model.js';
import type { Runtime } from '../../runtime/runtime.js';
import { evaluateMpolExpression } from './cel-engine.js';
import {
  admissionRequestValue,
  decided,
  decisionIr,
  evaluateTarget,
  MATCH_EVERYTHING,
  matchOf,
  metadata,
  resourceFor,
  selectorObjects,
  str,
  syntheticRequest,
  variableExprs,
  type ExistingPolicy,
  type TargetEvaluation,
} from './mutate-existing.js';
import { DIALECT } from './model.js';

/** What the background controller reads from the cluster. */
export interface MpolCluster {
  /** Every stored object. */
  objects(): readonly JsonObject[];
  /** The stored Namespace (with its labels), if any. */
  namespace(name: string): JsonObject | undefined;
  /** Data for Kyverno's CEL libraries (resource.Get / resource.List over the cluster). */
  provider?: KyvernoDataProvider;
  /** The runtime the policies run with (schemas: the kinds Kyverno types); default: a default runtime. */
  runtime?: Runtime;
}

/** An UpdateRequest of type cel-mutate: the policy and, unless it is a bare one, the trigger's request. */
export interface UpdateRequest {
  unit: ExistingPolicy;
  /** The trigger's admission request (as the interpreter models requests); absent for a bare UpdateRequest. */
  trigger?: AdmissionRequest;
  /** The CEL `request` value of the trigger: the admission request, or one the policy controller made up. */
  request?: JsonObject;
}

/**
 * webhooks/resource/mpol handler: the UpdateRequests an admitted request creates (engine
 * MatchedMutateExistingPolicies). Dry runs create none.
 */
export function admissionUpdateRequests(units: readonly ExistingPolicy[], trigger: AdmissionRequest, provider?: KyvernoDataProvider, runtime?: Runtime): UpdateRequest[] {
  if (trigger.dryRun === true) return [];
  const namespace = trigger.namespace ?? str(metadata(trigger.object ?? trigger.oldObject).namespace);
  const out: UpdateRequest[] = [];
  const request = admissionRequestValue(trigger);
  for (const unit of units) {
    const p = unit.policy;
    if (!p.mutateExisting || !p.admission) continue;
    if (p.namespace !== undefined && p.namespace !== namespace) continue;
    // The policy and its autogen variants are compiled policies of their own: any of them may match.
    const matches = unit.variants.some((v) => decided(decisionIr(unit, matchOf(v.matchConstraints, undefined), v.matchConditions, request), trigger, provider, runtime));
    if (matches) out.push({ unit, trigger, request });
  }
  return out;
}

/**
 * policy/mpol.go createURForMutatingPolicy: a policy event (install, update, background reconcile) of a
 * mutate-existing policy. With a target expression, one UpdateRequest per existing trigger
 * (getGpolTriggers), presented as a made-up UPDATE of it; otherwise one bare UpdateRequest.
 */
export function policyEventUpdateRequests(unit: ExistingPolicy, cluster: MpolCluster): UpdateRequest[] {
  const p = unit.policy;
  if (!p.mutateExisting) return [];
  if (!p.targetMatchConstraints?.expression) return [{ unit }];
  const out: UpdateRequest[] = [];
  for (const t of listTriggers(p.matchConstraints, cluster)) {
    const md = metadata(t.object);
    if (p.namespace !== undefined && str(md.namespace) !== p.namespace && !(t.object.kind === 'Namespace' && str(md.name) === p.namespace)) continue;
    const request = syntheticRequest(t.object, t.resource);
    out.push({ unit, trigger: { object: t.object, oldObject: null, operation: 'UPDATE', namespaceObject: null }, request });
  }
  return out;
}

interface Listed {
  object: JsonObject;
  resource: { group: string; version: string; resource: string };
  subresource: string;
}

/** The kind a group/version/resource maps to (REST mapper KindFor); wildcards do not resolve. */
function kindFor(group: string, version: string, resource: string, cluster: MpolCluster): string | undefined {
  if ([group, version, resource].some((x) => x.includes('*'))) return undefined;
  const builtin = kindOfResource({ group, version, resource });
  if (builtin) return builtin.kind;
  // A custom resource: the kind of a stored object of that group and version whose resource it is.
  const apiVersion = group === '' ? version : `${group}/${version}`;
  return cluster.objects().find((o) => o.apiVersion === apiVersion && resourceFor(group, str(o.kind)) === resource)?.kind as string | undefined;
}

/** Objects of one apiVersion and kind, in a namespace ('' for all), filtered by an object selector. */
function listObjects(cluster: MpolCluster, apiVersion: string, kind: string, namespace: string, selector: MatchResources['objectSelector']): JsonObject[] {
  const compiled = selector ? compileLabelSelector(selector).selector : undefined;
  return cluster.objects().filter((o) => {
    if (o.apiVersion !== apiVersion || o.kind !== kind) return false;
    if (namespace !== '' && str(metadata(o).namespace) !== namespace) return false;
    const labels = isJsonObject(metadata(o).labels) ? (metadata(o).labels as JsonObject) : {};
    return compiled ? compiled.matches(labels) : true;
  });
}

/** processor.go collectGVK + the listing loop: the targets of a bare (or non-expression) UpdateRequest. */
function listTargets(constraints: MatchResources, policyNamespace: string | undefined, cluster: MpolCluster): Listed[] {
  const items: { gv: { group: string; version: string }; kind: string; resource: string; subresource: string; names: string[] }[] = [];
  for (const rule of constraints.resourceRules) {
    for (const group of rule.groups) {
      for (const version of rule.versions) {
        for (const res of rule.resources) {
          const slash = res.indexOf('/');
          const base = slash < 0 ? res : res.slice(0, slash);
          const kind = kindFor(group, version, base, cluster);
          if (!kind) continue;
          items.push({ gv: { group, version }, kind, resource: base, subresource: slash < 0 ? '' : res.slice(slash + 1), names: rule.resourceNames ?? [] });
        }
      }
    }
  }
  let namespaces: string[];
  if (policyNamespace !== undefined) {
    namespaces = cluster.namespace(policyNamespace) ? [policyNamespace] : [];
  } else if (constraints.namespaceSelector) {
    const sel = compileLabelSelector(constraints.namespaceSelector).selector;
    namespaces = cluster
      .objects()
      .filter((o) => o.apiVersion === 'v1' && o.kind === 'Namespace' && sel.matches(isJsonObject(metadata(o).labels) ? (metadata(o).labels as JsonObject) : {}))
      .map((o) => str(metadata(o).name));
  } else namespaces = ['*'];
  const out: Listed[] = [];
  for (const ns of namespaces) {
    for (const item of items) {
      const listIn = item.kind === 'Namespace' || ns === '*' ? '' : ns;
      const apiVersion = item.gv.group === '' ? item.gv.version : `${item.gv.group}/${item.gv.version}`;
      for (const object of listObjects(cluster, apiVersion, item.kind, listIn, constraints.objectSelector)) {
        if (item.names.length > 0 && !item.names.includes(str(metadata(object).name))) continue;
        out.push({ object, resource: { group: item.gv.group, version: item.gv.version, resource: item.resource }, subresource: item.subresource });
      }
    }
  }
  return out;
}

/** policy/gpol.go getGpolTriggers: existing objects matching `match` (operations are not consulted). */
function listTriggers(match: MatchResources, cluster: MpolCluster): Listed[] {
  const out: Listed[] = [];
  for (const rule of match.resourceRules) {
    for (const group of rule.groups) {
      for (const resource of rule.resources) {
        let versions = rule.versions;
        if (versions.length === 1 && versions[0] === '*') {
          // The preferred version of the group's resource (built-in table); unknown resources do not resolve.
          const info = builtinResources().find((r) => r.group === group && r.resource === resource);
          if (!info) continue;
          versions = [info.version];
        }
        for (const version of versions) {
          const kind = kindFor(group, version, resource, cluster);
          if (!kind) continue;
          const apiVersion = group === '' ? version : `${group}/${version}`;
          for (const object of listObjects(cluster, apiVersion, kind, '', match.objectSelector)) {
            if (!triggerMatches(object, { group, version, resource }, rule.resourceNames ?? [], match, cluster)) continue;
            out.push({ object, resource: { group, version, resource }, subresource: '' });
          }
        }
      }
    }
  }
  return out;
}

/** policy/gpol.go triggerMatches: exclusions and names by exact string, the namespace selector on labels. */
function triggerMatches(object: JsonObject, gvr: { group: string; version: string; resource: string }, names: readonly string[], match: MatchResources, cluster: MpolCluster): boolean {
  const md = metadata(object);
  for (const rule of match.excludeResourceRules) {
    if (rule.groups.includes(gvr.group) && rule.versions.includes(gvr.version) && rule.resources.includes(gvr.resource) && (!rule.resourceNames?.length || rule.resourceNames.includes(str(md.name)))) return false;
  }
  if (names.length > 0 && !names.includes(str(md.name))) return false;
  if (match.namespaceSelector) {
    const ns = object.kind === 'Namespace' ? object : cluster.namespace(str(md.namespace));
    if (!ns) return false;
    const labels = isJsonObject(metadata(ns).labels) ? (metadata(ns).labels as JsonObject) : {};
    if (!compileLabelSelector(match.namespaceSelector).selector.matches(labels)) return false;
  }
  return true;
}

/** The resource (and subresource) a target found by expression is updated through (resolveTargetRoute). */
function targetRoute(object: JsonObject, tmc: MatchResources | undefined): Listed {
  const gvk = gvkOf(object);
  const resource = { group: gvk.group, version: gvk.version, resource: resourceFor(gvk.group, gvk.kind) };
  for (const rule of tmc?.resourceRules ?? []) {
    for (const group of rule.groups) {
      if (!wildcard(group, resource.group)) continue;
      for (const version of rule.versions) {
        if (!wildcard(version, resource.version)) continue;
        for (const r of rule.resources) {
          const [base, sub] = r.split('/', 2) as [string, string | undefined];
          if (wildcard(base, resource.resource)) return { object, resource, subresource: sub ?? '' };
        }
      }
    }
  }
  return { object, resource, subresource: '' };
}

function wildcard(pattern: string, subject: string): boolean {
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*').replaceAll('?', '.')}$`, 's');
  return re.test(subject);
}

export interface TargetWrite {
  /** The target as listed. */
  target: JsonObject;
  /** What the background controller writes back. */
  object: JsonObject;
  subresource: string;
  evaluation: TargetEvaluation;
}

export interface ProcessOutcome {
  writes: TargetWrite[];
  /** Failures Kyverno records on the UpdateRequest (rule errors are responses, not failures). */
  errors: string[];
  /** Every target evaluated (changed or not). */
  evaluated: TargetWrite[];
}

/** processor.go Process: one UpdateRequest over the cluster. The caller stores `writes` in order. */
export function processUpdateRequest(ur: UpdateRequest, cluster: MpolCluster): ProcessOutcome {
  const p = ur.unit.policy;
  const out: ProcessOutcome = { writes: [], errors: [], evaluated: [] };
  const tmc = p.targetMatchConstraints;
  let targets: Listed[];
  if (!tmc?.expression) {
    const constraints = tmc && tmc.resourceRules.length > 0 ? tmc : p.matchConstraints;
    targets = listTargets(constraints, p.namespace, cluster);
  } else {
    const found = expressionTargets(ur, cluster);
    if (typeof found === 'string') {
      out.errors.push(found);
      return out;
    }
    targets = found.map((o) => targetRoute(o, tmc));
  }
  const units = [{ unit: ur.unit, variants: ur.unit.variants }];
  for (const t of targets) {
    const request = ur.request ?? syntheticRequest(t.object, t.resource, t.subresource);
    const evaluation = evaluateTarget(units, t.object, request, cluster.provider, cluster.runtime);
    const write: TargetWrite = { target: t.object, object: evaluation.object, subresource: t.subresource, evaluation };
    out.evaluated.push(write);
    if (!jsonEqual(evaluation.object, t.object)) out.writes.push(write);
  }
  return out;
}

/** processor.go getTargetsFromExpression: the trigger re-read, its matchConditions, then the expression. */
function expressionTargets(ur: UpdateRequest, cluster: MpolCluster): JsonObject[] | string {
  const p = ur.unit.policy;
  const ar = ur.trigger;
  if (!ar || !ur.request) return 'invalid update request passed, the fields needed to extract resource data are nil';
  const raw = ar.operation === 'DELETE' ? ar.oldObject : ar.object;
  if (!isJsonObject(raw)) return 'invalid update request passed, the fields needed to extract resource data are nil';
  let trigger: JsonObject = raw;
  if (ar.operation !== 'DELETE') {
    const md = metadata(raw);
    const stored = cluster.objects().find((o) => o.apiVersion === raw.apiVersion && o.kind === raw.kind && str(metadata(o).namespace) === str(md.namespace) && str(metadata(o).name) === str(md.name));
    if (!stored) return `${String(raw.kind)} "${str(md.name)}" not found`;
    trigger = stored;
  }
  // MatchesConditions: the trigger as `object`, no old object, no namespace; any error is a no.
  const conditions = decisionIr(ur.unit, MATCH_EVERYTHING, p.matchConditions, ur.request);
  if (!decided(conditions, { object: trigger, oldObject: null, operation: ar.operation, namespaceObject: null }, cluster.provider, cluster.runtime)) return [];
  const expression = p.targetMatchConstraints!.expression!;
  const v = evaluateMpolExpression(
    { text: expression.text, origin: { ...expression.doc.spanOf(expression.path), dialect: DIALECT } },
    variableExprs(p),
    { object: trigger, oldObject: null, request: ur.request, namespaceObject: null },
    cluster.provider,
  );
  if (!v.ok) return v.message;
  // An empty list selects nothing (processor.go returns no targets for `items: []`).
  return selectorObjects(v.value);
}
