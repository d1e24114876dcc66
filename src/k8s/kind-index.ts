import type { GvkPattern, MatchClause, MatchSpec, ResourcePattern } from '../ir/match.js';
import { requestFacts } from './facts.js';
import { defaultProfile, type CompileMatchOptions, type MatchProfile } from './profile.js';
import type { AdmissionRequest } from './request.js';
import { lookupResource } from './resources.js';

/**
 * The kinds a spec can match, or `'*'` when a request of any kind could match. Resource rules count by the
 * kinds the built-in table serves at those resources; a resource the table does not know (a CRD), a `*`
 * resource or a `*` group makes the rule unbounded. `any` contributes the union of its clauses; every `all`
 * clause must hold, so any bounded `all` clause is a sound bound and the smallest is taken. Exclusions only
 * remove requests and are ignored. Look a request up under `requestIndexKeys(req)`: a policy is a candidate
 * iff one of its kinds is among them (or it is `'*'`).
 */
export function kindIndexKeys(spec: MatchSpec, options: CompileMatchOptions = {}): string[] | '*' {
  const profile = options.profile ?? defaultProfile(spec.globs);
  const candidates: string[][] = [];
  if (spec.any) {
    const union = new Set<string>();
    let bounded = true;
    for (const c of spec.any) {
      const keys = clauseKeys(c, profile);
      if (keys === '*') {
        bounded = false;
        break;
      }
      for (const k of keys) union.add(k);
    }
    if (bounded) candidates.push([...union]);
  }
  for (const c of spec.all ?? []) {
    const keys = clauseKeys(c, profile);
    if (keys !== '*') candidates.push(keys);
  }
  if (candidates.length === 0) return '*';
  return [...candidates.reduce((best, k) => (k.length < best.length ? k : best))].sort();
}

function clauseKeys(c: MatchClause, profile: MatchProfile): string[] | '*' {
  const fromKinds = c.kinds?.length ? kindKeys(c.kinds, profile) : '*';
  const fromResources = c.resources?.length ? resourceKeys(c.resources) : '*';
  if (fromKinds === '*') return fromResources;
  if (fromResources === '*') return fromKinds;
  return fromKinds.length <= fromResources.length ? fromKinds : fromResources;
}

function kindKeys(kinds: readonly GvkPattern[], profile: MatchProfile): string[] | '*' {
  const keys = new Set<string>();
  for (const k of kinds) {
    const globbed = k.kind === '*' || (profile === 'kyverno' && (k.kind.includes('*') || k.kind.includes('?')));
    if (globbed) return '*';
    keys.add(k.kind);
  }
  return [...keys];
}

function resourceKeys(rules: readonly ResourcePattern[]): string[] | '*' {
  const keys = new Set<string>();
  for (const r of rules) {
    if (r.groups.includes('*')) return '*';
    for (const res of r.resources) {
      const base = res.split('/', 1)[0]!;
      if (base === '*') return '*';
      for (const group of r.groups) {
        const info = lookupResource(group, base);
        if (!info) return '*';
        keys.add(info.kind);
      }
    }
  }
  return [...keys];
}

/**
 * The kinds to look a request up under in an index built from `kindIndexKeys`: the kind kind patterns are
 * matched against (the parent's for a subresource request) and, when different, the request body's kind.
 */
export function requestIndexKeys(req: AdmissionRequest): string[] {
  const f = requestFacts(req);
  return f.matchGvk.kind === f.gvk.kind ? [f.gvk.kind] : [f.matchGvk.kind, f.gvk.kind];
}
