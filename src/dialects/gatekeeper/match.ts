/**
 * `spec.applyTo` and `spec.match` (pkg/mutation/match/apply_to.go, match_types.go, core/mutator.go):
 * decoding, upstream validation, and conversion to the IR MatchSpec.
 *
 * The MatchSpec is `{any: one clause per applyTo entry, all: [the match block]}`: a mutator applies when
 * some single applyTo entry matches both the GVK and the operation (core.MatchWithApplyTo), and every
 * criterion of `match` holds.
 */
import type { Guard } from '../../ir/nodes.js';
import type { GvkPattern, LabelRequirement, LabelSelector, MatchClause, MatchSpec } from '../../ir/match.js';
import type { YamlPath } from '../../io/source.js';
import { gatekeeperApplyToOperations } from '../../k8s/operations.js';
import { fieldName, type FieldReader } from './fields.js';

// ---------------------------------------------------------------------------------------------- applyTo

export interface ApplyToEntry {
  groups: string[];
  versions: string[];
  kinds: string[];
  operations: string[];
}

const APPLY_TO_FIELDS = ['groups', 'versions', 'kinds', 'operations'] as const;

export function readApplyTo(r: FieldReader): ApplyToEntry[] {
  const at: YamlPath = ['spec', 'applyTo'];
  const items = r.array(at) ?? [];
  return items.map((_, i) => {
    const p = [...at, i];
    r.object(p, APPLY_TO_FIELDS);
    return {
      groups: r.stringList([...p, 'groups']) ?? [],
      versions: r.stringList([...p, 'versions']) ?? [],
      kinds: r.stringList([...p, 'kinds']) ?? [],
      operations: r.stringList([...p, 'operations']) ?? [],
    };
  });
}

const VALID_OPERATIONS = new Set(['CREATE', 'UPDATE', '*']);
/** What the mutation webhook executes (match.supportedMutationOperations). */
export const SUPPORTED_OPERATIONS = ['CREATE', 'UPDATE'] as const;

export interface ApplyToProblem {
  message: string;
  /** The entry at fault, when there is one. */
  index?: number;
}

/**
 * match.ValidateOperations: every problem of every entry, joined with "; " (the Kubernetes validation
 * pattern upstream follows); `index` is the first entry with a problem.
 */
export function validateOperations(entries: readonly Pick<ApplyToEntry, 'operations'>[]): ApplyToProblem | null {
  const errs: string[] = [];
  let first: number | undefined;
  entries.forEach((entry, i) => {
    const before = errs.length;
    const seen = new Set<string>();
    let hasWildcard = false;
    for (const op of entry.operations) {
      if (seen.has(op)) errs.push(`duplicate operation "${op}" in applyTo[${i}].operations`);
      seen.add(op);
      if (!VALID_OPERATIONS.has(op)) errs.push(`invalid operation "${op}" in applyTo[${i}].operations: must be one of CREATE, UPDATE, *`);
      if (op === '*') hasWildcard = true;
    }
    if (hasWildcard && entry.operations.length > 1) {
      errs.push(`wildcard "*" in applyTo[${i}].operations must not be combined with other operations`);
    }
    if (errs.length > before && first === undefined) first = i;
  });
  if (errs.length === 0) return null;
  return first === undefined ? { message: errs.join('; ') } : { message: errs.join('; '), index: first };
}

/** core.NewValidatedBindings, in upstream order: complete entries, valid operations, then non-empty. */
export function validateBindings(kind: string, name: string, entries: readonly ApplyToEntry[]): ApplyToProblem | null {
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.groups.length === 0 || e.versions.length === 0 || e.kinds.length === 0) {
      return { message: `invalid applyTo for ${kind} mutator ${name}, all of group, version and kind must be specified`, index: i };
    }
  }
  const ops = validateOperations(entries);
  if (ops) return { ...ops, message: `invalid applyTo for ${kind} mutator ${name}: ${ops.message}` };
  if (entries.length === 0) return { message: `applyTo required for ${kind} mutator ${name}` };
  return null;
}

/**
 * One clause per entry: exact group, version and kind membership (no globs), and the operations it admits,
 * always explicit (MutationApplyTo.MatchesOperation): none listed or `*` admit CREATE and UPDATE, the only
 * operations the mutation webhook executes; under the Gatekeeper match profile a request without operation
 * (expansion, gator) is admitted exactly when both are listed. An entry that admits neither never matches
 * and is left out.
 */
export function applyToClauses(entries: readonly ApplyToEntry[]): MatchClause[] {
  const clauses: MatchClause[] = [];
  for (const e of entries) {
    const operations = gatekeeperApplyToOperations(e.operations);
    if (operations === null) continue;
    const kinds: GvkPattern[] = [];
    for (const group of e.groups) for (const version of e.versions) for (const kind of e.kinds) kinds.push({ group, version, kind });
    clauses.push({ kinds, operations });
  }
  return clauses;
}

// ---------------------------------------------------------------------------------------------- match

export type MatchSource = 'All' | 'Generated' | 'Original';

export interface DecodedMatch {
  clause: MatchClause;
  source: MatchSource;
}

const MATCH_FIELDS = ['source', 'kinds', 'scope', 'namespaces', 'excludedNamespaces', 'labelSelector', 'namespaceSelector', 'name'] as const;
const KINDS_FIELDS = ['apiGroups', 'kinds'] as const;
const SELECTOR_FIELDS = ['matchLabels', 'matchExpressions'] as const;
const REQUIREMENT_FIELDS = ['key', 'operator', 'values'] as const;
const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

/** The CRD pattern of wildcard.Wildcard (namespaces, excludedNamespaces, name). */
const WILDCARD_SOURCE = String.raw`^\*?[-:a-z0-9]*\*?$`;
const WILDCARD = new RegExp(WILDCARD_SOURCE);

function wildcard(r: FieldReader, path: YamlPath): string | undefined {
  const s = r.string(path);
  if (s === undefined || WILDCARD.test(s)) return s;
  const name = fieldName(path);
  r.report('TM2004', `${name}: Invalid value: "${s}": ${name} in body should match '${WILDCARD_SOURCE}'`, path);
  return undefined;
}

function wildcards(r: FieldReader, path: YamlPath): string[] | undefined {
  const items = r.array(path);
  if (items === undefined) return undefined;
  const out: string[] = [];
  items.forEach((_, i) => {
    const w = wildcard(r, [...path, i]);
    if (w !== undefined) out.push(w);
  });
  return out;
}

function labelSelector(r: FieldReader, path: YamlPath): LabelSelector | undefined {
  if (r.object(path, SELECTOR_FIELDS) === undefined) return undefined;
  const sel: LabelSelector = {};
  const labels = r.object([...path, 'matchLabels']);
  if (labels !== undefined) {
    const matchLabels: Record<string, string> = {};
    for (const k of Object.keys(labels)) {
      const v = r.string([...path, 'matchLabels', k]);
      if (v !== undefined) Object.defineProperty(matchLabels, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    sel.matchLabels = matchLabels;
  }
  const exprs = r.array([...path, 'matchExpressions']);
  if (exprs !== undefined) {
    const matchExpressions: LabelRequirement[] = [];
    exprs.forEach((_, i) => {
      const p = [...path, 'matchExpressions', i];
      if (r.object(p, REQUIREMENT_FIELDS) === undefined) return;
      const key = r.string([...p, 'key']) ?? '';
      // Gatekeeper itself only notices a bad operator when it matches (LabelSelectorAsSelector); the IR cannot
      // hold one, so it is refused here.
      const operator = r.enumString([...p, 'operator'], OPERATORS) as LabelRequirement['operator'] | undefined;
      if (operator === undefined) {
        if (!r.has([...p, 'operator'])) r.report('TM2005', `${fieldName([...p, 'operator'])}: Required value`, p);
        return;
      }
      const values = r.stringList([...p, 'values']);
      matchExpressions.push(values === undefined ? { key, operator } : { key, operator, values });
    });
    sel.matchExpressions = matchExpressions;
  }
  return sel;
}

function matchKinds(r: FieldReader, path: YamlPath): GvkPattern[] | undefined {
  const items = r.array(path);
  if (items === undefined || items.length === 0) return undefined;
  const patterns: GvkPattern[] = [];
  items.forEach((_, i) => {
    const p = [...path, i];
    r.object(p, KINDS_FIELDS);
    const groups = r.stringList([...p, 'apiGroups']) ?? [];
    const kinds = r.stringList([...p, 'kinds']) ?? [];
    // An empty list or one containing `*` matches everything (match.go kindsMatch).
    const anyGroup = groups.length === 0 || groups.includes('*');
    const anyKind = kinds.length === 0 || kinds.includes('*');
    for (const kind of anyKind ? ['*'] : kinds) {
      if (anyGroup) patterns.push({ kind });
      else for (const group of groups) patterns.push({ group, kind });
    }
  });
  return patterns;
}

/** Reads `spec.match`; every criterion that is present becomes a field of one clause. */
export function readMatch(r: FieldReader): DecodedMatch {
  const at: YamlPath = ['spec', 'match'];
  const clause: MatchClause = {};
  let source: MatchSource = 'All';
  if (r.object(at, MATCH_FIELDS) === undefined) return { clause, source };

  source = (r.enumString([...at, 'source'], ['All', 'Generated', 'Original']) as MatchSource | undefined) ?? 'All';
  const kinds = matchKinds(r, [...at, 'kinds']);
  if (kinds) clause.kinds = kinds;
  // Any scope other than Cluster or Namespaced matches everything (match.go), `*` included.
  const scope = r.string([...at, 'scope']);
  if (scope === 'Cluster' || scope === 'Namespaced') clause.scope = scope;
  const namespaces = wildcards(r, [...at, 'namespaces']);
  if (namespaces && namespaces.length > 0) clause.namespaces = namespaces;
  const excluded = wildcards(r, [...at, 'excludedNamespaces']);
  if (excluded && excluded.length > 0) clause.excludedNamespaces = excluded;
  const labels = labelSelector(r, [...at, 'labelSelector']);
  if (labels) clause.labelSelector = labels;
  // Kept even when empty: a namespaced object without its Namespace fails the match whatever the selector.
  const nsSelector = labelSelector(r, [...at, 'namespaceSelector']);
  if (nsSelector) clause.namespaceSelector = nsSelector;
  const name = wildcard(r, [...at, 'name']);
  if (name) clause.names = [name];
  return { clause, source };
}

/**
 * The MatchSpec. `source` has no MatchSpec field: a `Generated` or `Original` source is returned as a guard
 * on `request.source` (AdmissionRequest.source), to be placed in the policy's guards.
 */
export function buildMatchSpec(
  r: FieldReader,
  applyTo: readonly ApplyToEntry[] | null,
  match: DecodedMatch,
): { spec: MatchSpec; sourceGuard?: Guard } {
  const spec: MatchSpec = { globs: 'prefixSuffix', origin: r.origin(['spec', 'match']) };
  if (applyTo) spec.any = applyToClauses(applyTo);
  if (Object.keys(match.clause).length > 0) spec.all = [match.clause];
  if (match.source === 'All') return { spec };
  const origin = r.origin(['spec', 'match', 'source']);
  const sourceGuard: Guard = {
    kind: 'eq',
    path: { root: 'request', segments: [{ kind: 'field', name: 'source' }] },
    value: { kind: 'literal', json: match.source, origin },
    origin,
  };
  return { spec, sourceGuard };
}
