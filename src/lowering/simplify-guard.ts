/**
 * Guard simplifications that keep the meaning exactly and make raised conditions read as written by hand:
 * what another argument of the same conjunction or disjunction implies is dropped, negations of existence
 * tests become the opposite test.
 */
import type { Guard } from '../ir/nodes.js';
import type { Path } from '../ir/path.js';

/** Field names of a path without list segments or tests, else undefined. */
export function plainFields(p: Path): string[] | undefined {
  const out: string[] = [];
  for (const s of p.segments) {
    if (s.kind !== 'field' || s.test) return undefined;
    out.push(s.name);
  }
  return out;
}

/** `a` is a prefix of `b` (strictly, unless `orEqual`). */
export function prefixOf(a: Path, b: Path, orEqual: boolean): boolean {
  const fa = plainFields(a);
  const fb = plainFields(b);
  if (!fa || !fb || a.root !== b.root || fa.length > fb.length || (!orEqual && fa.length === fb.length)) return false;
  return fa.every((f, i) => fb[i] === f);
}

/** A path the guard can only be true with: a comparison with a non-null literal needs its path. */
function requiredPath(g: Guard): Path | undefined {
  if (g.kind === 'exists') return g.path;
  if (g.kind === 'eq' && g.value.kind === 'literal' && g.value.json !== null) return g.path;
  if (g.kind === 'in' && g.values.every((v) => v.kind === 'literal' && v.json !== null)) return g.path;
  return undefined;
}

/**
 * Drops what another argument implies, so the conditions read as written by hand: in a disjunction,
 * `notExists a` next to `notExists a.b` (a missing map has no keys); in a conjunction, `exists a` next to a
 * test that needs `a` or something below it.
 */
export function simplifyGuard(g: Guard): Guard {
  if (g.kind === 'not') {
    const arg = simplifyGuard(g.arg);
    if (arg.kind === 'exists' || arg.kind === 'notExists') return { kind: arg.kind === 'exists' ? 'notExists' : 'exists', path: arg.path, origin: g.origin };
    if (arg.kind === 'not') return arg.arg;
    return { ...g, arg };
  }
  if (g.kind !== 'and' && g.kind !== 'or') return g;
  const args = g.args.map(simplifyGuard);
  const kept = args.filter((a, i) => {
    if (g.kind === 'or' && a.kind === 'notExists') return !args.some((b, j) => j !== i && b.kind === 'notExists' && prefixOf(a.path, b.path, false));
    if (g.kind === 'and' && a.kind === 'exists') return !args.some((b, j) => j !== i && b !== a && requiredPath(b) !== undefined && prefixOf(a.path, requiredPath(b)!, b.kind !== 'exists'));
    return true;
  });
  return kept.length === 1 ? kept[0]! : { ...g, args: kept };
}

