/**
 * A MAP has one match (matchConstraints plus the binding's matchResources): rule-level matches (Kyverno writes
 * match per rule) are hoisted into it when they all agree, or when they differ only in kinds, with each
 * rule then testing its own kinds in CEL.
 */
import { jsonEqual, type JsonObject } from '../../ir/json.js';
import type { MatchClause, MatchSpec, Policy, Rule } from '../../ir/nodes.js';
import type { GvkPattern } from '../../ir/match.js';
import { celString } from './emit-cel.js';
import { kyvernoMatchCel } from './match-cel.js';

export function isEmptyMatch(m: MatchSpec | undefined): boolean {
  return !m || (!m.any?.length && !m.all?.length && !m.exclude?.any?.length && !m.exclude?.all?.length);
}

/**
 * A MAP has one match: the policy's, or the rules' when they all share one (Kyverno writes match per rule),
 * held together with the policy's (a namespaced Kyverno Policy's namespace clause). Returns the policy with
 * that match hoisted, or why not.
 */
export function hoistRuleMatch(p: Policy, target: 'map' | 'kyverno-mpol' = 'map'): Policy | string {
  const withMatch = p.rules.filter((r) => r.match);
  if (withMatch.length === 0) return p;
  if (withMatch.length !== p.rules.length) return `a rule-level match on some rules only (rule ${withMatch[0]!.name})`;
  const hoisted = hoistRules(p.rules, target);
  if (typeof hoisted === 'string') return hoisted;
  const match = isEmptyMatch(p.match) ? hoisted.match : bothMatches(p.match, hoisted.match);
  if (typeof match === 'string') return `${match} (rule ${withMatch[0]!.name} under the policy's match)`;
  return { ...p, match, rules: hoisted.rules };
}

/** `outer` and `inner` both holding, as one match spec, or why one spec cannot say it. */
function bothMatches(outer: MatchSpec, inner: MatchSpec): MatchSpec | string {
  if (outer.globs !== inner.globs) return 'a policy match and a rule match with different name patterns';
  const outerAny = outer.any ?? [];
  const innerAny = inner.any ?? [];
  if (outerAny.length > 1 && innerAny.length > 0) return 'alternatives in both the policy match and the rule match';
  if (outer.exclude?.all?.length || inner.exclude?.all?.length) return 'an exclusion that needs all of several clauses';
  const all = [...(outer.all ?? []), ...(outerAny.length === 1 ? outerAny : []), ...(inner.all ?? [])];
  const any = outerAny.length > 1 ? outerAny : innerAny;
  const exclude = [...(outer.exclude?.any ?? []), ...(inner.exclude?.any ?? [])];
  const origin = inner.origin ?? outer.origin;
  return {
    globs: inner.globs,
    ...(any.length > 0 ? { any } : {}),
    ...(all.length > 0 ? { all } : {}),
    ...(exclude.length > 0 ? { exclude: { any: exclude } } : {}),
    ...(origin ? { origin } : {}),
  };
}

/** The rules' one match: shared by all, or the union of their kinds with each rule testing its own in CEL. */
function hoistRules(rules: readonly Rule[], target: 'map' | 'kyverno-mpol'): { match: MatchSpec; rules: Rule[] } | string {
  const first = rules[0]!.match!;
  const strip = (r: Rule): Rule => {
    const { match: _m, ...rest } = r;
    return rest;
  };
  if (rules.every((r) => jsonEqual(stripOrigin(r.match!), stripOrigin(first)))) return { match: first, rules: rules.map(strip) };
  // Rules that differ only in kinds (Kyverno autogen): the union matches, each rule tests its kinds in CEL.
  const out: Rule[] = [];
  const any: MatchClause[] = [];
  const patterns = rules.flatMap((r) => [...(r.match!.any ?? []), ...(r.match!.all ?? [])].flatMap((c) => c.kinds ?? []));
  const operationSets = new Set(rules.flatMap((r) => (r.match!.any ?? []).map((c) => JSON.stringify(c.operations?.includes('*') ? null : (c.operations ?? null)))));
  for (const { match, ...r } of rules) {
    let test = kindTest(match!, patterns, operationSets.size > 1);
    let union = match!.any ?? [];
    if ((!test || match!.globs !== first.globs) && rules.every((x) => x.match!.globs === 'wildcard')) {
      // Kyverno rules matching differently: the policy admits the union of their kinds, and each rule tests
      // its whole match (names, namespaces, selectors, exclusions...) in CEL.
      const full = kyvernoMatchCel(match!, target);
      if (typeof full !== 'string') return `${full.why} (rule ${r.name})`;
      const kinds = [...(match!.any ?? []), ...(match!.all ?? [])].flatMap((c) => c.kinds ?? []);
      if (kinds.length === 0) return `a rule match without kinds (rule ${r.name})`;
      test = full;
      union = [{ kinds }];
    }
    if (!test || match!.globs !== first.globs) return `rules with different matches in one policy (rule ${r.name}): a MAP has one matchConstraints`;
    for (const c of union) if (!any.some((x) => jsonEqual(x as JsonObject, c as JsonObject))) any.push(c);
    const rule: Rule = { ...r, guards: [{ kind: 'cel', expr: { text: test, origin: match!.origin ?? r.origin }, origin: match!.origin ?? r.origin }, ...r.guards] };
    ruleKinds.set(rule, match!);
    out.push(rule);
  }
  return { match: { globs: first.globs, any, ...(first.origin ? { origin: first.origin } : {}) }, rules: out };
}

/** The match of a rule whose kinds test moved into CEL: its writes are checked against its own kinds. */
export const ruleKinds = new WeakMap<Rule, MatchSpec>();

/**
 * `request.kind` tests for a match of alternative kinds only (same operations everywhere), or undefined.
 * `others` are the kind patterns of every rule of the policy: a kind name no other pattern claims is told
 * apart by its name alone (the hoisted matchConstraints admit it only in this rule's groups and versions).
 */
function kindTest(m: MatchSpec, others: readonly GvkPattern[], operationsDiffer: boolean): string | undefined {
  if (m.all?.length || m.exclude?.any?.length || m.exclude?.all?.length || !m.any?.length) return undefined;
  const full: string[] = [];
  const names: string[] = [];
  let byName = true;
  for (const c of m.any) {
    if (Object.keys(c).some((k) => k !== 'kinds' && k !== 'operations') || !c.kinds?.length) return undefined;
    for (const k of c.kinds) {
      const group = k.group === '*' ? undefined : k.group;
      const version = k.version === '*' ? undefined : k.version;
      if (k.subresource || /[*?]/.test(k.kind + (group ?? '') + (version ?? ''))) return undefined;
      const parts = [`request.kind.kind == ${celString(k.kind)}`];
      if (group !== undefined) parts.unshift(`request.kind.group == ${celString(group)}`);
      if (version !== undefined) parts.push(`request.kind.version == ${celString(version)}`);
      full.push(parts.join(' && '));
      if (others.every((o) => o.kind !== k.kind || jsonEqual(o as unknown as JsonObject, k as unknown as JsonObject))) names.push(k.kind);
      else byName = false;
    }
  }
  const ops = new Set(m.any.map((c) => JSON.stringify(c.operations ?? null)));
  if (ops.size > 1) return undefined;
  const uniqueNames = [...new Set(names)];
  const kinds = byName
    ? uniqueNames.length === 1
      ? `request.kind.kind == ${celString(uniqueNames[0]!)}`
      : `request.kind.kind in [${uniqueNames.map(celString).join(', ')}]`
    : full.length === 1
      ? full[0]!
      : full.map((t) => (t.includes('&&') ? `(${t})` : t)).join(' || ');
  const operations = m.any[0]!.operations;
  if (!operationsDiffer || !operations || operations.includes('*')) return kinds;
  const op = operations.length === 1 ? `request.operation == ${celString(operations[0]!)}` : `request.operation in [${operations.map(celString).join(', ')}]`;
  return `${kinds.includes(' || ') ? `(${kinds})` : kinds} && ${op}`;
}

export function stripOrigin(m: Policy['match']): JsonObject {
  const { origin: _origin, ...rest } = m;
  return JSON.parse(JSON.stringify(rest)) as JsonObject;
}
