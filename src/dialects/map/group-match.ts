/**
 * One MAP for a Gatekeeper fix-point whose mutators match differently. The API server promises no order
 * between MAPs, so the group stays one policy: its matchConstraints admit every resource some mutator
 * matches, the match conditions all mutators share stay matchConditions, and each mutator's own resource
 * rules and other conditions become a CEL guard on its own mutations. Gatekeeper decides each mutator's
 * match on every pass against the object as it is then, which is what a condition evaluated inside the
 * ordered mutation list sees.
 */
import { jsonEqual, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { Policy } from '../../ir/nodes.js';
import { celString, REQUEST_NAME, REQUEST_SUBRESOURCE } from './emit-cel.js';
import { isRefusal } from '../generate-report.js';
import { emitMatch, type EmittedMatch } from './emit-match.js';

export interface GroupMatch {
  /** The match the whole group is emitted with. */
  shared: EmittedMatch;
  /** The group's policies, each carrying its own remaining conditions as a guard on every rule. */
  policies: Policy[];
}

type ResourceRule = { apiGroups: string[]; apiVersions: string[]; resources: string[]; operations: string[] };

function asRules(v: JsonValue | undefined): ResourceRule[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: ResourceRule[] = [];
  for (const r of v) {
    const o = r as JsonObject;
    if (Object.keys(o).some((k) => !['apiGroups', 'apiVersions', 'resources', 'operations'].includes(k))) return undefined;
    out.push(o as unknown as ResourceRule);
  }
  return out;
}

function oneOf(subject: string, values: readonly string[]): string | undefined {
  if (values.includes('*')) return undefined;
  return values.length === 1 ? `${subject} == ${celString(values[0]!)}` : `${subject} in [${values.map(celString).join(', ')}]`;
}

/** `request` tests for one resource rule (no subresources: neither the rule nor the union admits them). */
function ruleTest(r: ResourceRule, withOperations: boolean): string | undefined {
  if (r.resources.some((x) => x.includes('/'))) return undefined;
  const parts = [oneOf('request.resource.group', r.apiGroups), oneOf('request.resource.version', r.apiVersions), oneOf('request.resource.resource', r.resources)];
  if (withOperations) parts.push(oneOf('request.operation', r.operations));
  const defined = parts.filter((p): p is string => p !== undefined);
  return defined.length === 0 ? 'true' : defined.join(' && ');
}

/**
 * One resource rule as a CEL test of the request (a subresource `r/s` tests request.subResource; a rule
 * without one admits no subresource), operations included.
 */
export function resourceRuleTest(rule: JsonObject): string {
  const list = (k: string): string[] => (Array.isArray(rule[k]) ? (rule[k] as string[]) : ['*']);
  const resources = list('resources').map((r) => {
    const [res, sub] = r.split('/', 2) as [string, string | undefined];
    const parts = [res === '*' ? undefined : `request.resource.resource == ${celString(res)}`, sub === undefined ? `${REQUEST_SUBRESOURCE} == ""` : sub === '*' ? undefined : `${REQUEST_SUBRESOURCE} == ${celString(sub)}`];
    const defined = parts.filter((x): x is string => x !== undefined);
    return defined.length === 0 ? 'true' : defined.join(' && ');
  });
  const parts = [
    oneOf('request.resource.group', list('apiGroups')),
    oneOf('request.resource.version', list('apiVersions')),
    resources.includes('true') ? undefined : resources.length === 1 ? resources[0] : `(${resources.map((r) => `(${r})`).join(' || ')})`,
    oneOf('request.operation', list('operations')),
    // resourceNames names the request's object (an empty list admits every name).
    Array.isArray(rule.resourceNames) && rule.resourceNames.length > 0 ? oneOf(REQUEST_NAME, rule.resourceNames as string[]) : undefined,
  ];
  const defined = parts.filter((p): p is string => p !== undefined);
  return defined.length === 0 ? 'true' : defined.join(' && ');
}

/** The group's resource rules: every mutator's, without repeats; undefined when something else constrains. */
function unionOf(emitted: readonly EmittedMatch[]): ResourceRule[] | undefined {
  const out: ResourceRule[] = [];
  for (const m of emitted) {
    if (m.bindingMatch || Object.keys(m.matchConstraints).some((k) => k !== 'resourceRules')) return undefined;
    const rules = asRules(m.matchConstraints.resourceRules);
    if (!rules) return undefined;
    out.push(...rules);
  }
  // A rule another admits entirely adds nothing (the first of two equal rules stays).
  return out.filter((r, i) => !out.some((o, j) => j !== i && covers(o, r) && (!covers(r, o) || j < i)));
}

function coversAll(outer: readonly string[], inner: readonly string[]): boolean {
  return outer.includes('*') || inner.every((x) => outer.includes(x));
}

/** Every request `inner` admits, `outer` admits too. */
function covers(outer: ResourceRule, inner: ResourceRule): boolean {
  return (
    coversAll(outer.apiGroups, inner.apiGroups) &&
    coversAll(outer.apiVersions, inner.apiVersions) &&
    coversAll(outer.operations, inner.operations) &&
    inner.resources.every((r) => outer.resources.includes(r) || (outer.resources.includes('*') && !r.includes('/')))
  );
}

/** The shared match of a group, or why there is none. */
export function groupMatch(policies: readonly Policy[]): GroupMatch | string {
  const emitted: EmittedMatch[] = [];
  for (const p of policies) {
    const m = emitMatch(p.match);
    if (typeof m === 'string') return m;
    if (isRefusal(m)) return m.why;
    emitted.push(m);
  }
  const first = emitted[0]!;
  const sameResources = emitted.every((m) => jsonEqual(m.matchConstraints, first.matchConstraints) && jsonEqual((m.bindingMatch ?? null) as JsonValue, (first.bindingMatch ?? null) as JsonValue));
  const union = sameResources ? undefined : unionOf(emitted);
  if (!sameResources && !union) {
    return `Gatekeeper mutators matching different resources with selectors or exclusions in one ordered pass (${policies.map((p) => p.id).join(', ')}): a MAP has one matchConstraints`;
  }
  const operationSets = new Set(emitted.flatMap((m) => (asRules(m.matchConstraints.resourceRules) ?? []).map((r) => JSON.stringify(r.operations))));
  const common = first.conditions.filter((c) => emitted.every((m) => m.conditions.some((x) => x.expression === c.expression)));
  const notes = [...new Set(emitted.flatMap((m) => m.notes))];
  const out: Policy[] = [];
  for (const [i, p] of policies.entries()) {
    const own = emitted[i]!.conditions.filter((c) => !common.some((x) => x.expression === c.expression)).map((c) => c.expression);
    if (union) {
      const rules = asRules(emitted[i]!.matchConstraints.resourceRules)!;
      if (!jsonEqual(rules as unknown as JsonValue, union as unknown as JsonValue)) {
        const tests = rules.map((r) => ruleTest(r, operationSets.size > 1));
        if (tests.some((t) => t === undefined)) return `the subresource rules of ${p.id} inside a group of Gatekeeper mutators`;
        if (!tests.includes('true')) own.unshift(tests.length === 1 ? tests[0]! : tests.map((t) => `(${t})`).join(' || '));
      }
    }
    if (own.length === 0) {
      out.push(p);
      continue;
    }
    const text = own.map((c) => (own.length > 1 && /\|\||\?/.test(c) ? `(${c})` : c)).join(' && ');
    const origin = p.match.origin ?? p.origin;
    out.push({ ...p, rules: p.rules.map((r) => ({ ...r, guards: [{ kind: 'cel' as const, expr: { text, origin }, origin }, ...r.guards] })) });
  }
  const shared: EmittedMatch = { ...first, conditions: common, notes };
  if (union) shared.matchConstraints = { resourceRules: union as unknown as JsonValue[] };
  return { shared, policies: out };
}
