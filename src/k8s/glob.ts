import type { GlobStyle } from '../ir/match.js';

/** A compiled name pattern: a pure predicate over one string. */
export type GlobMatcher = (subject: string) => boolean;

const matchEverything: GlobMatcher = () => true;

/** Whether a Kyverno pattern uses a wildcard at all (kyverno `pkg/utils/wildcard.ContainsWildcard`). */
export function containsWildcard(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('?');
}

/**
 * Kyverno wildcards, as `github.com/IGLOU-EU/go-wildcard` v1.0.3 (pinned by Kyverno) matches them:
 * `*` is any run of characters (empty included, `/` included), `?` is exactly one character (one code
 * point, not one UTF-16 unit), everything else is literal and case-sensitive, there is no escape
 * character, and the empty pattern matches only the empty string.
 *
 * The pattern is split at `*` into fixed-length segments; the first is anchored at the start, the last at
 * the end and the middle ones are found leftmost in order. Leftmost placement is always safe because every
 * segment has a fixed length, so matching is O(|pattern| * |subject|) at worst and never backtracks
 * exponentially (`a*a*a*a*b` against `aaaa...` stays linear in the number of segments).
 */
export function compileWildcard(pattern: string): GlobMatcher {
  if (pattern === '*') return matchEverything;
  if (!containsWildcard(pattern)) return (s) => s === pattern;
  const hasQuestion = pattern.includes('?');
  const rawSegments = pattern.split('*');
  // A segment without `?` compares UTF-16 units directly; with `?` both sides are code point arrays.
  if (!hasQuestion) return compileStarOnly(rawSegments);
  const segments = rawSegments.map((s) => Array.from(s));
  return (subject) => matchSegments(segments, Array.from(subject));
}

function compileStarOnly(segments: string[]): GlobMatcher {
  const first = segments[0]!;
  const last = segments[segments.length - 1]!;
  const middle = segments.slice(1, -1).filter((s) => s.length > 0);
  const minLength = segments.reduce((n, s) => n + s.length, 0);
  if (middle.length === 0) {
    return (s) => s.length >= minLength && s.startsWith(first) && s.endsWith(last);
  }
  return (s) => {
    if (s.length < minLength || !s.startsWith(first) || !s.endsWith(last)) return false;
    let from = first.length;
    const limit = s.length - last.length;
    for (const seg of middle) {
      const at = s.indexOf(seg, from);
      if (at < 0 || at + seg.length > limit) return false;
      from = at + seg.length;
    }
    return true;
  };
}

function segmentAt(seg: readonly string[], subject: readonly string[], at: number): boolean {
  for (let i = 0; i < seg.length; i++) {
    const p = seg[i]!;
    if (p !== '?' && p !== subject[at + i]) return false;
  }
  return true;
}

function matchSegments(segments: readonly (readonly string[])[], subject: readonly string[]): boolean {
  const first = segments[0]!;
  const n = subject.length;
  if (segments.length === 1) return first.length === n && segmentAt(first, subject, 0);
  const last = segments[segments.length - 1]!;
  if (first.length + last.length > n) return false;
  if (!segmentAt(first, subject, 0) || !segmentAt(last, subject, n - last.length)) return false;
  let from = first.length;
  const limit = n - last.length;
  for (let k = 1; k < segments.length - 1; k++) {
    const seg = segments[k]!;
    if (seg.length === 0) continue;
    let at = from;
    while (at + seg.length <= limit && !segmentAt(seg, subject, at)) at++;
    if (at + seg.length > limit) return false;
    from = at + seg.length;
  }
  return true;
}

/**
 * Gatekeeper's `util.Wildcard.Matches` (`pkg/util/wildcard.go`): a leading and a trailing `*` mean
 * "contains", a leading `*` alone "ends with", a trailing `*` alone "starts with"; anything else is exact.
 * Only one `*` is trimmed at each end, so `**a` is the suffix `*a`, as upstream.
 */
export function compilePrefixSuffix(pattern: string): GlobMatcher {
  const starts = pattern.startsWith('*');
  const ends = pattern.endsWith('*');
  if (starts && ends) {
    // `*` alone trims to the empty string on both sides: contains("") is always true.
    const inner = pattern.length === 1 ? '' : pattern.slice(1, -1);
    return inner === '' ? matchEverything : (s) => s.includes(inner);
  }
  if (starts) {
    const suffix = pattern.slice(1);
    return (s) => s.endsWith(suffix);
  }
  if (ends) {
    const prefix = pattern.slice(0, -1);
    return (s) => s.startsWith(prefix);
  }
  return (s) => s === pattern;
}

/**
 * Gatekeeper also matches `name` against `metadata.generateName`, but only for the prefix (`x*`) and contains
 * (`*x*`) forms: a generated name only fixes the start of the final name. Suffix and exact patterns never
 * match a generateName.
 */
export function compileGenerateNamePattern(pattern: string): GlobMatcher {
  const starts = pattern.startsWith('*');
  const ends = pattern.endsWith('*');
  if (!ends) return () => false;
  if (starts) return compilePrefixSuffix(pattern);
  const prefix = pattern.slice(0, -1);
  return (s) => s.startsWith(prefix);
}

function compileExact(pattern: string): GlobMatcher {
  return (s) => s === pattern;
}

// Patterns come from policies, so the caches stay small in practice; the cap only guards against a
// caller feeding unbounded distinct patterns (the cache is cleared, never grown past it).
const CACHE_LIMIT = 10_000;
const caches: Record<GlobStyle, Map<string, GlobMatcher>> = {
  wildcard: new Map(),
  prefixSuffix: new Map(),
  exact: new Map(),
};
const compilers: Record<GlobStyle, (p: string) => GlobMatcher> = {
  wildcard: compileWildcard,
  prefixSuffix: compilePrefixSuffix,
  exact: compileExact,
};

/** The matcher for `pattern` in `style`, compiled once and cached. */
export function compileGlob(pattern: string, style: GlobStyle): GlobMatcher {
  const cache = caches[style];
  let m = cache.get(pattern);
  if (m === undefined) {
    m = compilers[style](pattern);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, m);
  }
  return m;
}

/** One-shot glob match in `style` (the compiled matcher is cached). */
export function globMatch(pattern: string, subject: string, style: GlobStyle): boolean {
  return compileGlob(pattern, style)(subject);
}

/** Kyverno's `wildcard.Match(pattern, subject)`. */
export function wildcardMatch(pattern: string, subject: string): boolean {
  return compileGlob(pattern, 'wildcard')(subject);
}

/** A matcher that holds when any of `patterns` matches; an empty list matches nothing. */
export function compileAnyGlob(patterns: readonly string[], style: GlobStyle): GlobMatcher {
  const matchers = patterns.map((p) => compileGlob(p, style));
  if (matchers.length === 1) return matchers[0]!;
  if (matchers.some((m) => m === matchEverything)) return matchEverything;
  if (style === 'exact' || patterns.every((p) => !p.includes('*') && !(style === 'wildcard' && p.includes('?')))) {
    const set = new Set(patterns);
    return (s) => set.has(s);
  }
  return (s) => matchers.some((m) => m(s));
}
