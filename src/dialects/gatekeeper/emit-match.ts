/**
 * An IR match block written as Gatekeeper's `applyTo` and `match` (the inverse of match.ts): `any` clauses
 * of exact group/version/kind and operations become applyTo entries, the one `all` clause becomes `match`,
 * and a `request.source` guard becomes `match.source`. Kinds without a group or version are completed from
 * the built-in resource table. What Gatekeeper cannot match on is refused with the reason.
 */
import type { JsonObject, JsonValue } from '../../ir/json.js';
import type { GvkPattern, LabelSelector, MatchClause, MatchSpec } from '../../ir/match.js';
import type { Guard } from '../../ir/nodes.js';
import { builtinResources, lookupKind } from '../../k8s/resources.js';
import type { MatchSource } from './match.js';

export interface EmittedMatch {
  /** Absent when the block matches every kind (only AssignMetadata can say that). */
  applyTo?: JsonObject[];
  match?: JsonObject;
}

const ALL_OPERATIONS = ['CREATE', 'UPDATE'];

function unique<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}

/** A g/v/k list as `groups × versions × kinds` entries, in the order the parser expands them. */
function factorKinds(kinds: readonly { group: string; version: string; kind: string }[]): { groups: string[]; versions: string[]; kinds: string[] }[] {
  const groups = unique(kinds.map((k) => k.group));
  const versions = unique(kinds.map((k) => k.version));
  const names = unique(kinds.map((k) => k.kind));
  const product: string[] = [];
  for (const g of groups) for (const v of versions) for (const k of names) product.push(`${g}/${v}/${k}`);
  if (product.join('\n') === kinds.map((k) => `${k.group}/${k.version}/${k.kind}`).join('\n')) return [{ groups, versions, kinds: names }];
  return kinds.map((k) => ({ groups: [k.group], versions: [k.version], kinds: [k.kind] }));
}

/**
 * The built-in kinds a pattern names. A group or version that is absent or `*` (Kyverno's `Pod`) takes the
 * groups that serve the kind and their preferred version: Gatekeeper needs exact kinds, and a custom kind
 * that reuses a built-in name in another group is not covered.
 */
function exactKinds(p: GvkPattern): { group: string; version: string; kind: string }[] | string {
  if (p.subresource !== undefined && p.subresource !== '') return `subresource ${p.subresource} (applyTo names kinds only)`;
  if (p.kind === '*' || p.kind.includes('?') || p.kind.includes('*')) return 'a wildcard kind in applyTo (Gatekeeper needs exact kinds)';
  const anyGroup = p.group === undefined || p.group === '*';
  const anyVersion = p.version === undefined || p.version === '*';
  if (!anyGroup && !anyVersion) return [{ group: p.group!, version: p.version!, kind: p.kind }];
  if (!anyGroup && p.group!.includes('*')) return 'a wildcard group in applyTo';
  if (!anyVersion && p.version!.includes('*')) return 'a wildcard version in applyTo';
  // An absent group (the IR dialect's `{kind: Pod}`) is the core group, as before; `*` is every group.
  const known =
    p.group === '*'
      ? builtinResources().filter((r) => r.kind === p.kind)
      : [lookupKind(p.group ?? '', p.kind)].filter((r): r is NonNullable<typeof r> => r !== undefined);
  const matching = known.filter((k) => anyVersion || k.version === p.version);
  if (matching.length === 0) return `kind ${p.kind} without a known group and version`;
  return matching.map((k) => ({ group: k.group, version: anyVersion ? k.version : p.version!, kind: k.kind }));
}

function applyToEntry(clause: MatchClause): JsonObject[] | string {
  const extra = Object.keys(clause).filter((k) => k !== 'kinds' && k !== 'operations');
  if (extra.length > 0) return `match criteria ${extra.join(', ')} in an alternative (Gatekeeper ANDs its match criteria)`;
  if (!clause.kinds || clause.kinds.length === 0) return 'an alternative without kinds';
  const kinds = [];
  for (const p of clause.kinds) {
    const k = exactKinds(p);
    if (typeof k === 'string') return k;
    kinds.push(...k);
  }
  const ops = clause.operations ?? ALL_OPERATIONS;
  if (ops.some((o) => !ALL_OPERATIONS.includes(o) && o !== '*')) return `operations ${ops.join(', ')} (Gatekeeper mutates on CREATE and UPDATE only)`;
  const everything = ops.includes('*') || ALL_OPERATIONS.every((o) => ops.includes(o));
  return factorKinds(kinds).map((f) => (everything ? { ...f } : { ...f, operations: ALL_OPERATIONS.filter((o) => ops.includes(o)) }));
}

/** `match.kinds` entries, merging runs the parser would expand back to the same patterns. */
function matchKinds(patterns: readonly GvkPattern[]): JsonObject[] | string {
  const entries: { apiGroups: string[]; kinds: string[] }[] = [];
  for (const p of patterns) {
    if (p.version !== undefined && p.version !== '*') return `version ${p.version} in match.kinds (only applyTo names versions)`;
    if (p.subresource !== undefined && p.subresource !== '') return `subresource ${p.subresource}`;
    const groups = p.group === undefined || p.group === '*' ? ['*'] : [p.group];
    const last = entries[entries.length - 1];
    // kindsMatch expands kinds-major: one entry's kinds each take every group of the entry.
    if (last && last.kinds.length === 1 && last.kinds[0] === p.kind && groups[0] !== '*' && last.apiGroups[0] !== '*') last.apiGroups.push(groups[0]!);
    else if (last && last.apiGroups.join('\n') === groups.join('\n') && (last.kinds.length > 1 || last.apiGroups.length === 1)) last.kinds.push(p.kind);
    else entries.push({ apiGroups: groups, kinds: [p.kind] });
  }
  return entries.map((e) => ({ apiGroups: e.apiGroups, kinds: e.kinds }));
}

/** Kyverno-style wildcards mean the same in Gatekeeper only when `*` is a prefix or suffix and `?` is absent. */
function gatekeeperGlob(pattern: string, globs: MatchSpec['globs']): string | undefined {
  if (globs === 'exact') return pattern.includes('*') ? undefined : pattern;
  if (pattern.includes('?')) return globs === 'prefixSuffix' ? pattern : undefined;
  return /^\*?[^*]*\*?$/.test(pattern) ? pattern : undefined;
}

function selector(s: LabelSelector): JsonObject {
  const out: JsonObject = {};
  if (s.matchLabels) out.matchLabels = { ...s.matchLabels };
  if (s.matchExpressions) out.matchExpressions = s.matchExpressions.map((e) => ({ key: e.key, operator: e.operator, ...(e.values ? { values: [...e.values] } : {}) }));
  return out;
}

function matchBlock(clause: MatchClause, globs: MatchSpec['globs']): JsonObject | string {
  const out: JsonObject = {};
  const unsupported = (['resources', 'operations', 'annotations', 'userInfo'] as const).filter((k) => clause[k] !== undefined);
  if (unsupported.length > 0) return `match criteria ${unsupported.join(', ')} (Gatekeeper's match has no such criterion)`;
  if (clause.kinds) {
    const kinds = matchKinds(clause.kinds);
    if (typeof kinds === 'string') return kinds;
    out.kinds = kinds;
  }
  if (clause.scope !== undefined && clause.scope !== '*') out.scope = clause.scope;
  for (const key of ['namespaces', 'excludedNamespaces'] as const) {
    const list = clause[key];
    if (!list) continue;
    const converted = list.map((p) => gatekeeperGlob(p, globs));
    if (converted.some((p) => p === undefined)) return `${key} patterns ${list.join(', ')} (Gatekeeper globs are a leading or trailing *)`;
    out[key] = converted as string[];
  }
  if (clause.names) {
    if (clause.names.length !== 1) return `${clause.names.length} name patterns (Gatekeeper's match.name is one)`;
    const name = gatekeeperGlob(clause.names[0]!, globs);
    if (name === undefined) return `name pattern ${clause.names[0]}`;
    out.name = name;
  }
  if (clause.labelSelector) out.labelSelector = selector(clause.labelSelector);
  if (clause.namespaceSelector) out.namespaceSelector = selector(clause.namespaceSelector);
  return out;
}

/** The `request.source == Original|Generated` guard the parser writes for `match.source`. */
export function sourceOfGuard(g: Guard): MatchSource | undefined {
  if (g.kind !== 'eq' || g.path.root !== 'request' || g.path.segments.length !== 1) return undefined;
  const seg = g.path.segments[0]!;
  if (seg.kind !== 'field' || seg.name !== 'source' || g.value.kind !== 'literal') return undefined;
  const v: JsonValue = g.value.json;
  return v === 'Original' || v === 'Generated' ? v : undefined;
}

/**
 * An exclude block Gatekeeper can say: clauses that name only namespaces (Kyverno `exclude.any[].resources
 * .namespaces`) are its excludedNamespaces (a single `all` clause likewise). A cluster-scoped object is
 * excluded by neither engine: Kyverno matches its namespace '' against the patterns, and Gatekeeper's
 * excludedNamespaces never disqualify it.
 */
function excludedNamespaces(spec: MatchSpec): string[] | string {
  const ex = spec.exclude;
  if (!ex) return [];
  const any = ex.any ?? [];
  const all = ex.all ?? [];
  if (all.length > 1 || (all.length === 1 && any.length > 0)) return 'an exclude block whose clauses must all hold';
  const clauses = [...any, ...all];
  if (clauses.some((c) => Object.keys(c).some((k) => k !== 'namespaces') || !c.namespaces?.length)) {
    return 'an exclude block on criteria other than namespaces (Gatekeeper has only excludedNamespaces)';
  }
  return [...new Set(clauses.flatMap((c) => c.namespaces!))];
}

/**
 * `applyTo` and `match` for a policy's match block and source. `needsApplyTo`: Assign, ModifySet and
 * AssignImage require applyTo; AssignMetadata has none, so its kinds can only be `match.kinds`.
 */
export function emitMatch(spec: MatchSpec, source: MatchSource | undefined, needsApplyTo: boolean): EmittedMatch | string {
  const excluded = excludedNamespaces(spec);
  if (typeof excluded === 'string') return excluded;
  const all = spec.all ?? [];
  if (all.length > 1) return `${all.length} match clauses that must all hold`;
  const clause: MatchClause = { ...(all[0] ?? {}) };
  if (excluded.length > 0) {
    if (clause.excludedNamespaces) return 'excluded namespaces in two places';
    clause.excludedNamespaces = excluded;
  }
  let alternatives = spec.any ?? [];
  // One alternative is part of the conjunction; with applyTo, its kinds and operations stay the applyTo.
  if (alternatives.length === 1) {
    const only: MatchClause = { ...alternatives[0]! };
    const keep: MatchClause = {};
    if (needsApplyTo && only.kinds) {
      keep.kinds = only.kinds;
      if (only.operations) keep.operations = only.operations;
      delete only.kinds;
      delete only.operations;
    }
    for (const key of Object.keys(only) as (keyof MatchClause)[]) {
      if (clause[key] !== undefined) return `two ${key} criteria that must both hold`;
      (clause as Record<string, unknown>)[key] = only[key];
    }
    alternatives = keep.kinds ? [keep] : [];
  }
  const out: EmittedMatch = {};
  if (needsApplyTo) {
    if (alternatives.length === 0) {
      if (!clause.kinds) return 'a match without kinds (applyTo names the kinds a mutator changes)';
      alternatives = [{ kinds: clause.kinds, ...(clause.operations ? { operations: clause.operations } : {}) }];
      delete clause.kinds;
      delete clause.operations;
    }
    const applyTo: JsonObject[] = [];
    for (const a of alternatives) {
      const entries = applyToEntry(a);
      if (typeof entries === 'string') return entries;
      applyTo.push(...entries);
    }
    if (applyTo.length === 0) return 'an applyTo that matches nothing';
    out.applyTo = applyTo;
  } else {
    if (alternatives.length > 0) return 'kind alternatives on labels or annotations (AssignMetadata has no applyTo)';
    const ops = clause.operations;
    if (ops && !ops.includes('*') && !ALL_OPERATIONS.every((o) => ops.includes(o))) {
      return `operations ${ops.join(', ')} on labels or annotations (AssignMetadata applies on every operation)`;
    }
    delete clause.operations;
    // A version a built-in kind is served at (the table's) restricts nothing for AssignMetadata, which
    // matches kinds of every version; another version it cannot say.
    if (clause.kinds) {
      const kinds: GvkPattern[] = [];
      for (const k of clause.kinds) {
        if (k.version === undefined || k.version === '*') kinds.push(k);
        else if (k.group !== undefined && k.group !== '*' && lookupKind(k.group, k.kind)?.version === k.version) kinds.push({ ...k, version: '*' });
        else return 'kind versions on labels or annotations (AssignMetadata matches kinds without versions)';
      }
      clause.kinds = kinds;
    }
  }
  const match = matchBlock(clause, spec.globs);
  if (typeof match === 'string') return match;
  if (source) match.source = source;
  if (Object.keys(match).length > 0) out.match = match;
  return out;
}
