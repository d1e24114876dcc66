/**
 * Semantic version precedence (semver 2.0 §11), as both blang/semver (Kyverno's operators) and Kubernetes'
 * CEL semver library order versions: major, minor, patch numerically; a version without pre-release ranks
 * above one with it; pre-release identifiers compare numerically when both are numeric, numeric below
 * alphanumeric, otherwise by ASCII; a longer list of equal identifiers ranks higher. Build metadata is ignored.
 */
export interface SemverParts {
  core: readonly [number, number, number];
  pre: readonly string[];
}

export function compareSemver(a: SemverParts, b: SemverParts): number {
  for (let i = 0; i < 3; i++) if (a.core[i] !== b.core[i]) return a.core[i]! < b.core[i]! ? -1 : 1;
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]!;
    const y = b.pre[i]!;
    if (x === y) continue;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) return Number(x) < Number(y) ? -1 : 1;
    if (nx !== ny) return nx ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}
