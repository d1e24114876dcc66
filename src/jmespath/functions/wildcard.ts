/**
 * Kyverno wildcards (go-wildcard v1.0.3, MinIO's algorithm, reference kyverno.md 1.4): `*` matches any
 * sequence including the empty one, `?` exactly one rune, everything else literally; an empty
 * pattern matches only the empty string. Linear-time greedy matching with one backtrack point,
 * equivalent to the upstream recursion without its exponential worst case.
 */
export function wildcardMatch(pattern: string, name: string): boolean {
  if (pattern === '') return name === '';
  if (pattern === '*') return true;
  const p = Array.from(pattern);
  const s = Array.from(name);
  let pi = 0;
  let si = 0;
  let starP = -1;
  let starS = 0;
  while (si < s.length) {
    if (pi < p.length && (p[pi] === '?' || (p[pi] !== '*' && p[pi] === s[si]))) {
      pi++;
      si++;
    } else if (pi < p.length && p[pi] === '*') {
      starP = pi++;
      starS = si;
    } else if (starP >= 0) {
      pi = starP + 1;
      si = ++starS;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}
