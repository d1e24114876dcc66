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
import { cannot, isRefusal, notYet, type Refusal } from '../generate-report.js';
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
export function exactKinds(p: GvkPattern): { group: string; version: string; kind: string }[] | Refusal {
  if (p.subresource !== undefined && p.subresource !== '') return cannot(`a match on the subresource ${p.kind}/${p.subresource} (Gatekeeper mutates objects, and applyTo names kinds only)`);
  if (p.kind === '*' || p.kind.includes('?') || p.kind.includes('*')) return cannot(`a match on the kind pattern ${p.kind} (applyTo names exact kinds)`);
  const anyGroup = p.group === undefined || p.group === '*';
  const anyVersion = p.version === undefined || p.version === '*';
  if (!anyGroup && !anyVersion) return [{ group: p.group!, version: p.version!, kind: p.kind }];
  if (!anyGroup && p.group!.includes('*')) return cannot(`a match on the group pattern ${p.group} (applyTo names exact groups)`);
  if (!anyVersion && p.version!.includes('*')) return cannot(`a match on the version pattern ${p.version} (applyTo names exact versions)`);
  // An absent group (the IR dialect's `{kind: Pod}`) is the core group, as before; `*` is every group.
  const known =
    p.group === '*'
      ? builtinResources().filter((r) => r.kind === p.kind)
      : [lookupKind(p.group ?? '', p.kind)].filter((r): r is NonNullable<typeof r> => r !== undefined);
  const matching = known.filter((k) => anyVersion || k.version === p.version);
  if (matching.length === 0) {
    const where = anyGroup && anyVersion ? 'every group and version' : anyGroup ? `every group at version ${p.version}` : `every version of group ${p.group}`;
    return cannot(`a match on kind ${p.kind} in ${where} (applyTo names exact groups and versions, and ${p.kind} is not a built-in kind whose group and version transmute could name instead)`);
  }
  return matching.map((k) => ({ group: k.group, version: anyVersion ? k.version : p.version!, kind: k.kind }));
}

function applyToEntry(clause: MatchClause): JsonObject[] | Refusal {
  const extra = Object.keys(clause).filter((k) => k !== 'kinds' && k !== 'operations');
  if (extra.length > 0) return notYet(`match criteria ${extra.join(', ')} in one of several alternatives (one mutator per alternative)`);
  if (!clause.kinds || clause.kinds.length === 0) return cannot('a match alternative without kinds (applyTo names the kinds a mutator changes)');
  const kinds = [];
  for (const p of clause.kinds) {
    const k = exactKinds(p);
    if (isRefusal(k)) return k;
    kinds.push(...k);
  }
  const ops = clause.operations ?? ALL_OPERATIONS;
  if (ops.some((o) => !ALL_OPERATIONS.includes(o) && o !== '*')) return cannot(`a match on operations ${ops.join(', ')} (Gatekeeper mutates on CREATE and UPDATE only)`);
  const everything = ops.includes('*') || ALL_OPERATIONS.every((o) => ops.includes(o));
  return factorKinds(kinds).map((f) => (everything ? { ...f } : { ...f, operations: ALL_OPERATIONS.filter((o) => ops.includes(o)) }));
}

/** `match.kinds` entries, merging runs the parser would expand back to the same patterns. */
function matchKinds(patterns: readonly GvkPattern[]): JsonObject[] | Refusal {
  const entries: { apiGroups: string[]; kinds: string[] }[] = [];
  for (const p of patterns) {
    if (p.version !== undefined && p.version !== '*') return cannot(`a match on version ${p.version} of ${p.kind} without applyTo (match.kinds names groups and kinds, not versions)`);
    if (p.subresource !== undefined && p.subresource !== '') return cannot(`a match on the subresource ${p.kind}/${p.subresource} (Gatekeeper mutates objects, and match.kinds names kinds only)`);
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

const CRITERIA: Record<string, string> = {
  resources: 'resource rules',
  operations: 'operations',
  annotations: 'annotations (Gatekeeper selects objects by labels only)',
  userInfo: 'the requesting user, group or role (Gatekeeper\'s match has no user criteria)',
};

function matchBlock(clause: MatchClause, globs: MatchSpec['globs']): JsonObject | Refusal {
  const out: JsonObject = {};
  const unsupported = (['resources', 'operations', 'annotations', 'userInfo'] as const).filter((k) => clause[k] !== undefined);
  if (unsupported.length > 0) return cannot(`a match on ${unsupported.map((k) => CRITERIA[k]).join(', ')}`);
  if (clause.kinds) {
    const kinds = matchKinds(clause.kinds);
    if (isRefusal(kinds)) return kinds;
    out.kinds = kinds;
  }
  if (clause.scope !== undefined && clause.scope !== '*') out.scope = clause.scope;
  for (const key of ['namespaces', 'excludedNamespaces'] as const) {
    const list = clause[key];
    if (!list) continue;
    const converted = list.map((p) => gatekeeperGlob(p, globs));
    if (converted.some((p) => p === undefined)) return cannot(`the ${key === 'namespaces' ? 'namespace' : 'excluded namespace'} patterns ${list.join(', ')} (Gatekeeper's namespace globs are one leading or trailing *)`);
    out[key] = converted as string[];
  }
  if (clause.names) {
    if (clause.names.length !== 1) return notYet(`${clause.names.length} name patterns (Gatekeeper's match.name is one: one mutator per name)`);
    const name = gatekeeperGlob(clause.names[0]!, globs);
    if (name === undefined) return cannot(`the name pattern ${clause.names[0]} (Gatekeeper's name glob is one leading or trailing *)`);
    out.name = name;
  }
  if (clause.labelSelector) out.labelSelector = selector(clause.labelSelector);
  if (clause.namespaceSelector) out.namespaceSelector = selector(clause.namespaceSelector);
  return out;
}

/**
 * applyTo entries restricted to `operations` (a subset of CREATE and UPDATE, from conditions on
 * request.operation); an entry left with no operation is dropped.
 */
function restrictOperations(entries: readonly JsonObject[], operations: readonly string[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const e of entries) {
    const own = Array.isArray(e.operations) ? (e.operations as string[]) : ALL_OPERATIONS;
    const ops = ALL_OPERATIONS.filter((o) => own.includes(o) && operations.includes(o));
    if (ops.length === 0) continue;
    const { operations: _o, ...rest } = e;
    out.push(ops.length === ALL_OPERATIONS.length ? rest : { ...rest, operations: ops });
  }
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
function excludedNamespaces(spec: MatchSpec): string[] | Refusal {
  const ex = spec.exclude;
  if (!ex) return [];
  const any = ex.any ?? [];
  const all = ex.all ?? [];
  if (all.length > 1 || (all.length === 1 && any.length > 0)) return cannot('an exclusion that needs several criteria to hold together (Gatekeeper excludes by namespace only)');
  const clauses = [...any, ...all];
  if (clauses.some((c) => Object.keys(c).some((k) => k !== 'namespaces') || !c.namespaces?.length)) {
    const criteria = [...new Set(clauses.flatMap((c) => Object.keys(c).filter((k) => k !== 'namespaces')))];
    return cannot(`an exclusion by ${criteria.join(', ') || 'an empty clause'} (Gatekeeper excludes by namespace only, with excludedNamespaces)`);
  }
  return [...new Set(clauses.flatMap((c) => c.namespaces!))];
}

/**
 * `applyTo` and `match` for a policy's match block and source. `needsApplyTo`: Assign, ModifySet and
 * AssignImage require applyTo; AssignMetadata has none, so its kinds can only be `match.kinds`.
 */
export function emitMatch(spec: MatchSpec, source: MatchSource | undefined, needsApplyTo: boolean, operations?: readonly string[]): EmittedMatch | Refusal {
  const excluded = excludedNamespaces(spec);
  if (isRefusal(excluded)) return excluded;
  const all = spec.all ?? [];
  if (all.length > 1) return notYet(`${all.length} match clauses on the same criteria that must all hold (their intersection)`);
  const clause: MatchClause = { ...(all[0] ?? {}) };
  if (excluded.length > 0) {
    if (clause.excludedNamespaces) return notYet('excluded namespaces in two places (their union)');
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
      if (clause[key] !== undefined) return notYet(`two ${key} criteria that must both hold (their intersection)`);
      (clause as Record<string, unknown>)[key] = only[key];
    }
    alternatives = keep.kinds ? [keep] : [];
  }
  const out: EmittedMatch = {};
  if (needsApplyTo) {
    if (alternatives.length === 0) {
      if (!clause.kinds) return cannot('a match on every kind (Assign, ModifySet and AssignImage name the kinds they change in applyTo)');
      alternatives = [{ kinds: clause.kinds, ...(clause.operations ? { operations: clause.operations } : {}) }];
      delete clause.kinds;
      delete clause.operations;
    }
    const applyTo: JsonObject[] = [];
    for (const a of alternatives) {
      const entries = applyToEntry(a);
      if (isRefusal(entries)) return entries;
      applyTo.push(...(operations ? restrictOperations(entries, operations) : entries));
    }
    if (applyTo.length === 0) return cannot('a rule that applies on no operation Gatekeeper mutates (CREATE, UPDATE)');
    out.applyTo = applyTo;
  } else {
    if (alternatives.length > 0) return notYet('kind alternatives on labels or annotations (AssignMetadata has no applyTo: their kinds in match.kinds)');
    const ops = clause.operations;
    if (ops && !ops.includes('*') && !ALL_OPERATIONS.every((o) => ops.includes(o))) {
      return cannot(`adding a label or annotation on ${ops.join(', ')} only (AssignMetadata has no applyTo and applies on every operation)`);
    }
    if (operations && !ALL_OPERATIONS.every((o) => operations.includes(o))) {
      return cannot(`adding a label or annotation on ${operations.join(', ') || 'no operation'} only (AssignMetadata has no applyTo and applies on every operation)`);
    }
    delete clause.operations;
    // A version a built-in kind is served at (the table's) restricts nothing for AssignMetadata, which
    // matches kinds of every version; another version it cannot say.
    if (clause.kinds) {
      const kinds: GvkPattern[] = [];
      for (const k of clause.kinds) {
        if (k.version === undefined || k.version === '*') kinds.push(k);
        else if (k.group !== undefined && k.group !== '*' && lookupKind(k.group, k.kind)?.version === k.version) kinds.push({ ...k, version: '*' });
        else return cannot(`adding a label or annotation to version ${k.version} of ${k.kind} only (AssignMetadata matches kinds without versions)`);
      }
      clause.kinds = kinds;
    }
  }
  const match = matchBlock(clause, spec.globs);
  if (isRefusal(match)) return match;
  if (source) match.source = source;
  if (Object.keys(match).length > 0) out.match = match;
  return out;
}
