import type { GvkPattern } from '../ir/match.js';

// kyverno `pkg/utils/kube/kind.go` versionRegex: a first segment that looks like a version (or `*`).
const VERSION = /^(?:v\d+(?:(?:alpha|beta)\d+)?|\*)$/;

/**
 * Parses a Kyverno `kinds` entry into a GVK pattern, as kyverno `pkg/utils/kube.ParseKindSelector` does:
 * the text is split on `/` and its last part once more on `.`, then read by the number of parts:
 * `Kind` | `Kind/sub` | `Kind.sub` | `version/Kind` | `version/Kind/sub` | `group/version/Kind` |
 * `group/version/Kind/sub`, with `*\/*` meaning every resource and subresource and `*\/sub` (lowercase
 * second part) every kind's `sub`. A missing group or version is `*`; a missing subresource is `''`, which
 * matches only requests for the main resource (plus Kyverno's Pod → pods/ephemeralcontainers allowance).
 */
export function parseKindSelector(input: string): GvkPattern {
  const slashParts = input.split('/');
  const parts = [...slashParts.slice(0, -1), ...slashParts[slashParts.length - 1]!.split('.')];
  const p = (group: string, version: string, kind: string, subresource: string): GvkPattern => ({ group, version, kind, subresource });
  switch (parts.length) {
    case 1:
      return p('*', '*', parts[0]!, '');
    case 2: {
      const [a, b] = parts as [string, string];
      if (a === '*' && b === '*') return p('*', '*', '*', '*');
      if (a === '*' && b.toLowerCase() === b) return p('*', '*', a, b);
      if (VERSION.test(a)) return p('*', a, b, '');
      return p('*', '*', a, b);
    }
    case 3: {
      const [a, b, c] = parts as [string, string, string];
      if (VERSION.test(a)) return p('*', a, b, c);
      return p(a, b, c, '');
    }
    case 4:
      return p(parts[0]!, parts[1]!, parts[2]!, parts[3]!);
    default:
      // Upstream returns four empty strings: the entry then matches nothing real.
      return p('', '', '', '');
  }
}

