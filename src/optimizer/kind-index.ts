import type { Policy } from '../ir/nodes.js';
import { kindIndexKeys, requestIndexKeys } from '../k8s/index.js';
import type { AdmissionRequest } from '../k8s/request.js';

/**
 * The kind index: not a rewrite but an analysis the interpreter consults. Per policy set, the policies that can match each kind, in set order: matching a set against an object costs
 * time in proportion to the policies that can match its kind, not to the size of the set.
 */
interface KindIndex {
  byKind: Map<string, Policy[]>;
  wildcard: Policy[];
  all: readonly Policy[];
  memo: Map<string, Policy[]>;
}

const indexes = new WeakMap<readonly Policy[], KindIndex>();

function build(policies: readonly Policy[]): KindIndex {
  const byKind = new Map<string, Policy[]>();
  const wildcard: Policy[] = [];
  for (const p of policies) {
    const keys = kindIndexKeys(p.match);
    if (keys === '*') wildcard.push(p);
    else for (const k of keys) (byKind.get(k) ?? byKind.set(k, []).get(k)!).push(p);
  }
  return { byKind, wildcard, all: policies, memo: new Map() };
}

export function candidatesFor(policies: readonly Policy[], request: AdmissionRequest): readonly Policy[] {
  if (policies.length < 8) return policies;
  let index = indexes.get(policies);
  if (!index) indexes.set(policies, (index = build(policies)));
  // A subresource request is looked up under its parent kind too (a Deployment/scale rule for a Scale body).
  const kinds = requestIndexKeys(request).filter((k) => k !== '');
  if (kinds.length === 0) return policies;
  const memoKey = kinds.join('/');
  const hit = index.memo.get(memoKey);
  if (hit) return hit;
  const chosen = new Set(index.wildcard);
  for (const k of kinds) for (const p of index.byKind.get(k) ?? []) chosen.add(p);
  const ordered = index.all.filter((p) => chosen.has(p));
  index.memo.set(memoKey, ordered);
  return ordered;
}
