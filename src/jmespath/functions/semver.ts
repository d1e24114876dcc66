/**
 * semver_compare with blang/semver v4 semantics: the version is parsed strictly and silently becomes
 * 0.0.0 when invalid (functions.go ignores the error); the range is space-separated comparators
 * (AND) joined by `||` (OR), with `x` wildcards expanded as range.go expandWildcardVersion does.
 */
import { failure } from '../types.js';
import { expectString, withTwo, type FunctionSpec } from './registry.js';

interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: (string | bigint)[];
}

const NUM = '(0|[1-9]\\d*)';
const IDENT = '[0-9A-Za-z-]+';
const VERSION_RE = new RegExp(`^${NUM}\\.${NUM}\\.${NUM}(?:-(${IDENT}(?:\\.${IDENT})*))?(?:\\+(${IDENT}(?:\\.${IDENT})*))?$`);

function parseVersion(s: string): Version | undefined {
  const m = VERSION_RE.exec(s);
  if (!m) return undefined;
  const pre: (string | bigint)[] = [];
  if (m[4] !== undefined) {
    for (const p of m[4].split('.')) {
      if (/^\d+$/.test(p)) {
        if (p.length > 1 && p.startsWith('0')) return undefined;
        pre.push(BigInt(p));
      } else pre.push(p);
    }
  }
  return { major: BigInt(m[1]!), minor: BigInt(m[2]!), patch: BigInt(m[3]!), pre };
}

function cmp(a: Version, b: Version): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  if (a.pre.length === 0 && b.pre.length === 0) return 0;
  if (a.pre.length === 0) return 1;
  if (b.pre.length === 0) return -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]!;
    const y = b.pre[i]!;
    if (x === y) continue;
    if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : 1;
    if (typeof x === 'bigint') return -1;
    if (typeof y === 'bigint') return 1;
    return x < y ? -1 : 1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

type Comparator = (v: Version) => boolean;

const OPS: Record<string, (c: number) => boolean> = {
  '': (c) => c === 0,
  '=': (c) => c === 0,
  '==': (c) => c === 0,
  '!': (c) => c !== 0,
  '!=': (c) => c !== 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
};

function splitOp(s: string): [string, string] {
  const m = /^(>=|<=|==|!=|>|<|=|!)?(.*)$/.exec(s)!;
  return [m[1] ?? '', m[2]!];
}

function bump(v: string, part: 'major' | 'minor'): string {
  const [a, b] = v.split('.');
  return part === 'major' ? `${BigInt(a!) + 1n}.0.0` : `${a}.${BigInt(b!) + 1n}.0`;
}

/** range.go expandWildcardVersion. */
function expandWildcard(token: string): string[] | string {
  if (!token.includes('x')) return [token];
  const [op, v] = splitOp(token);
  const parts = v.split('.');
  if (parts.length !== 3) return `Could not parse Range "${token}"`;
  let kind: 'patch' | 'minor';
  if (parts[1] === 'x' && parts[2] === 'x') kind = 'minor';
  else if (parts[2] === 'x' && parts[1] !== 'x') kind = 'patch';
  else return `Could not parse Range "${token}"`;
  const flat = parts.map((p) => (p === 'x' ? '0' : p)).join('.');
  const incremented = bump(flat, kind === 'patch' ? 'minor' : 'major');
  switch (op) {
    case '>':
      return ['>=' + incremented];
    case '>=':
      return ['>=' + flat];
    case '<':
      return ['<' + flat];
    case '<=':
      return ['<' + incremented];
    case '!=':
    case '!':
      return ['<' + flat, '>=' + incremented];
    default:
      return ['>=' + flat, '<' + incremented];
  }
}

/** semver.ParseRange. */
function parseRange(s: string): Comparator | string {
  const alternatives: Comparator[][] = [];
  for (const orPart of s.split('||')) {
    const raw = orPart.trim().split(/\s+/).filter((t) => t !== '');
    // An operator written apart from its version (">= 1.2.3") belongs to the next token.
    const tokens: string[] = [];
    for (let i = 0; i < raw.length; i++) {
      if (/^(>=|<=|==|!=|>|<|=|!)$/.test(raw[i]!) && i + 1 < raw.length) {
        tokens.push(raw[i]! + raw[i + 1]!);
        i++;
      } else tokens.push(raw[i]!);
    }
    if (tokens.length === 0) return `Could not parse Range "${s}"`;
    const all: Comparator[] = [];
    for (const token of tokens) {
      const expanded = expandWildcard(token);
      if (typeof expanded === 'string') return expanded;
      for (const t of expanded) {
        const [op, vs] = splitOp(t);
        const v = parseVersion(vs);
        if (v === undefined) return `Could not parse Range "${s}": Could not parse version "${vs}" in "${t}"`;
        const test = OPS[op]!;
        all.push((x) => test(cmp(x, v)));
      }
    }
    alternatives.push(all);
  }
  return (v) => alternatives.some((group) => group.every((c) => c(v)));
}

export const SEMVER_FUNCTIONS: FunctionSpec[] = [
  {
    name: 'semver_compare',
    args: [['string'], ['string']],
    handler: withTwo('semver_compare', expectString, expectString, (v, r) => {
      const version = parseVersion(v) ?? { major: 0n, minor: 0n, patch: 0n, pre: [] };
      const range = parseRange(r);
      if (typeof range === 'string') return failure('Runtime', range);
      return range(version);
    }),
  },
];
