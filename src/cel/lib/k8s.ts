/**
 * Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library): regex find/findAll, quantity,
 * semver, format, authorizer and jsonpatch.escapeKey. IP/CIDR/URL live in k8s-net.ts.
 */
import { global, member, type FunctionDef } from '../registry.js';
import { compareSemver } from '../../k8s/semver.js';
import { CelOpaque, CelOptional, CelOrderedOpaque, err, kindOf, mkDouble, noOverload, normBig } from '../values.js';
import { ipFunctions, urlFunctions } from './k8s-net.js';
import { compileRegex } from './std.js';

/** jsonpatch.escapeKey: RFC 6901 escaping, `~` first (pkg/cel/library/jsonpatch.go). */
export function escapeKey(s: unknown): string {
  if (typeof s !== 'string') return noOverload('jsonpatch.escapeKey', s);
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

// ------------------------------------------------------------------------------------------ regex
/**
 * @bufbuild/re2 answers only "does it match" (linear time). For the match text we validate the
 * pattern with RE2 first (so RE2-only syntax rules apply), ask RE2 whether any match exists (so a
 * pathological pattern on a non-matching input never reaches a backtracking engine), and only then
 * extract matches with an equivalent JS RegExp (both engines are leftmost-first).
 */
const jsRegexCache = new Map<string, RegExp>();

function toJsRegex(pattern: string): RegExp {
  let re = jsRegexCache.get(pattern);
  if (re) return re;
  let src = pattern;
  let flags = 'gu';
  const lead = /^\(\?([imsU]+)\)/.exec(src);
  if (lead) {
    for (const f of lead[1]!) if (f !== 'U') flags += f;
    src = src.slice(lead[0].length);
  }
  src = src
    .replace(/\(\?P</g, '(?<')
    .replace(/\\z/g, '$(?![\\s\\S])')
    .replace(/\\A/g, '^(?<![\\s\\S])')
    .replace(/\[:alpha:\]/g, 'a-zA-Z')
    .replace(/\[:digit:\]/g, '0-9')
    .replace(/\[:alnum:\]/g, 'a-zA-Z0-9')
    .replace(/\[:upper:\]/g, 'A-Z')
    .replace(/\[:lower:\]/g, 'a-z')
    .replace(/\[:space:\]/g, '\\t\\n\\v\\f\\r ')
    .replace(/\[:xdigit:\]/g, '0-9A-Fa-f');
  try {
    re = new RegExp(src, flags);
  } catch (e) {
    return err(`regex ${pattern} is not supported by the match extractor: ${(e as Error).message}`);
  }
  jsRegexCache.set(pattern, re);
  return re;
}

function findAll(s: unknown, pattern: unknown, limit?: unknown): string[] {
  if (typeof s !== 'string' || typeof pattern !== 'string') return noOverload('findAll', s, pattern);
  let n = limit === undefined ? -1 : Number(limit);
  if (limit !== undefined && kindOf(limit) !== 'int') noOverload('findAll', s, pattern, limit);
  if (n === 0) return [];
  if (!compileRegex(pattern).test(s)) return [];
  const re = toJsRegex(pattern);
  re.lastIndex = 0;
  const out: string[] = [];
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    out.push(m[0]);
    if (m[0] === '') re.lastIndex++;
    if (n > 0 && --n === 0) break;
  }
  return out;
}

// ------------------------------------------------------------------------------------------ quantity
const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** An exact rational num / den (den a power of ten), as resource.Quantity keeps an inf.Dec. */
export class CelQuantity extends CelOrderedOpaque {
  readonly typeName = 'kubernetes.Quantity';
  constructor(
    readonly raw: string,
    readonly num: bigint,
    readonly den: bigint,
  ) {
    super();
  }
  override compare(o: unknown): number {
    const q = o as CelQuantity;
    const a = this.num * q.den;
    const b = q.num * this.den;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  override toString(): string {
    return this.raw;
  }
}

function parseQuantity(s: string): CelQuantity | undefined {
  const m = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/.exec(s);
  if (!m) return undefined;
  const [, sign, digits, suffix = ''] = m;
  const [whole, frac = ''] = digits!.split('.');
  let num = BigInt((whole || '0') + frac);
  let den = 10n ** BigInt(frac.length);
  if (BINARY[suffix]) num *= BINARY[suffix]!;
  else {
    const exp = suffix === '' || DECIMAL[suffix] !== undefined ? DECIMAL[suffix]! : Number(suffix.slice(1));
    if (Math.abs(exp) > 1000) return undefined;
    if (exp >= 0) num *= 10n ** BigInt(exp);
    else den *= 10n ** BigInt(-exp);
  }
  if (sign === '-') num = -num;
  return new CelQuantity(s, num, den);
}

function quantity(s: unknown): CelQuantity {
  if (typeof s !== 'string') return noOverload('quantity', s);
  const q = parseQuantity(s);
  if (!q) err(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  return q;
}

function qArg(fn: string, v: unknown): CelQuantity {
  if (v instanceof CelQuantity) return v;
  return noOverload(fn, v);
}

function qOperand(fn: string, v: unknown): CelQuantity {
  if (kindOf(v) === 'int') return new CelQuantity(String(v), BigInt(v as number), 1n);
  return qArg(fn, v);
}

function qArith(a: CelQuantity, b: CelQuantity, sign: 1n | -1n): CelQuantity {
  const den = a.den > b.den ? a.den : b.den;
  const num = a.num * (den / a.den) + sign * b.num * (den / b.den);
  return new CelQuantity(formatQuantity(num, den), num, den);
}

function formatQuantity(num: bigint, den: bigint): string {
  if (num % den === 0n) return String(num / den);
  const neg = num < 0n;
  const a = neg ? -num : num;
  const digits = String(den).length - 1;
  const s = String(a).padStart(digits + 1, '0');
  return `${neg ? '-' : ''}${s.slice(0, -digits)}.${s.slice(-digits)}`.replace(/0+$/, '');
}

const quantityFunctions: FunctionDef[] = [
  global('k8s.quantity', 'quantity', 1, quantity),
  global('k8s.quantity', 'isQuantity', 1, (s: unknown) => (typeof s === 'string' ? parseQuantity(s) !== undefined : noOverload('isQuantity', s))),
  member('k8s.quantity', 'sign', 0, (q: unknown) => {
    const n = qArg('sign', q).num;
    return n > 0n ? 1 : n < 0n ? -1 : 0;
  }),
  member('k8s.quantity', 'isInteger', 0, (q: unknown) => {
    const x = qArg('isInteger', q);
    return x.num % x.den === 0n && x.num / x.den <= 2n ** 63n - 1n && x.num / x.den >= -(2n ** 63n);
  }),
  member('k8s.quantity', 'asInteger', 0, (q: unknown) => {
    const x = qArg('asInteger', q);
    if (x.num % x.den !== 0n) err('cannot convert value to integer');
    const v = x.num / x.den;
    if (v > 2n ** 63n - 1n || v < -(2n ** 63n)) err('cannot convert value to integer');
    return normBig(v);
  }),
  member('k8s.quantity', 'asApproximateFloat', 0, (q: unknown) => {
    const x = qArg('asApproximateFloat', q);
    return mkDouble(Number(x.num) / Number(x.den));
  }),
  member('k8s.quantity', 'add', 1, (a: unknown, b: unknown) => qArith(qArg('add', a), qOperand('add', b), 1n), { recv: ['opaque'] }),
  member('k8s.quantity', 'sub', 1, (a: unknown, b: unknown) => qArith(qArg('sub', a), qOperand('sub', b), -1n)),
  member('k8s.quantity', 'isGreaterThan', 1, (a: unknown, b: unknown) => qArg('isGreaterThan', a).compare(qArg('isGreaterThan', b)) > 0, { recv: ['opaque'] }),
  member('k8s.quantity', 'isLessThan', 1, (a: unknown, b: unknown) => qArg('isLessThan', a).compare(qArg('isLessThan', b)) < 0, { recv: ['opaque'] }),
  member('k8s.quantity', 'compareTo', 1, (a: unknown, b: unknown) => qArg('compareTo', a).compare(qArg('compareTo', b)), { recv: ['opaque'] }),
];

// ------------------------------------------------------------------------------------------ semver
export class CelSemver extends CelOrderedOpaque {
  readonly typeName = 'kubernetes.Semver';
  constructor(
    readonly major: number,
    readonly minor: number,
    readonly patch: number,
    readonly pre: string[],
    readonly raw: string,
  ) {
    super();
  }
  override compare(o: unknown): number {
    const b = o as CelSemver;
    return compareSemver({ core: [this.major, this.minor, this.patch], pre: this.pre }, { core: [b.major, b.minor, b.patch], pre: b.pre });
  }

  override toString(): string {
    return this.raw;
  }
}

function parseSemver(s: string, normalize: boolean): CelSemver | undefined {
  let t = s;
  if (normalize) {
    if (t.startsWith('v')) t = t.slice(1);
    const core = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$/.exec(t);
    if (core) t = `${Number(core[1])}.${Number(core[2] ?? 0)}.${Number(core[3] ?? 0)}${core[4]}`;
  }
  const m = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/.exec(t);
  if (!m) return undefined;
  return new CelSemver(Number(m[1]), Number(m[2]), Number(m[3]), m[4] ? m[4].split('.') : [], s);
}

function semverArg(fn: string, v: unknown): CelSemver {
  if (v instanceof CelSemver) return v;
  return noOverload(fn, v);
}

const semverFunctions: FunctionDef[] = [
  global('k8s.semver', 'semver', [1, 2], (s: unknown, norm?: unknown) => {
    if (typeof s !== 'string' || (norm !== undefined && typeof norm !== 'boolean')) return noOverload('semver', s, norm);
    const v = parseSemver(s, norm === true);
    if (!v) err(`could not parse semver: ${s}`);
    return v;
  }),
  global('k8s.semver', 'isSemver', [1, 2], (s: unknown, norm?: unknown) => {
    if (typeof s !== 'string' || (norm !== undefined && typeof norm !== 'boolean')) return noOverload('isSemver', s, norm);
    return parseSemver(s, norm === true) !== undefined;
  }),
  member('k8s.semver', 'major', 0, (v: unknown) => semverArg('major', v).major),
  member('k8s.semver', 'minor', 0, (v: unknown) => semverArg('minor', v).minor),
  member('k8s.semver', 'patch', 0, (v: unknown) => semverArg('patch', v).patch),
  member('k8s.semver', 'isGreaterThan', 1, (a: unknown, b: unknown) => semverArg('isGreaterThan', a).compare(semverArg('isGreaterThan', b)) > 0, { recv: ['opaque'] }),
  member('k8s.semver', 'isLessThan', 1, (a: unknown, b: unknown) => semverArg('isLessThan', a).compare(semverArg('isLessThan', b)) < 0, { recv: ['opaque'] }),
  member('k8s.semver', 'compareTo', 1, (a: unknown, b: unknown) => semverArg('compareTo', a).compare(semverArg('compareTo', b)), { recv: ['opaque'] }),
];

// ------------------------------------------------------------------------------------------ format
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

type Validator = (s: string) => string[];

function rx(re: RegExp, max: number, what: string, example: string): Validator {
  return (s) => {
    const errs: string[] = [];
    if (s.length > max) errs.push(`must be no more than ${max} characters`);
    if (!re.test(s)) errs.push(`a ${what} must consist of ${example}`);
    return errs;
  };
}

function prefixed(v: Validator): Validator {
  // *Prefix formats validate the name with a trailing '-' stripped (generateName prefixes).
  return (s) => v(s.endsWith('-') ? s.slice(0, -1) : s);
}

const FORMATS: Record<string, Validator> = {
  dns1123Label: rx(DNS1123_LABEL, 63, "lowercase RFC 1123 label", "lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"),
  dns1123Subdomain: rx(DNS1123_SUBDOMAIN, 253, 'lowercase RFC 1123 subdomain', "lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"),
  dns1035Label: rx(DNS1035_LABEL, 63, 'DNS-1035 label', "lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"),
  qualifiedName: (s) => {
    const parts = s.split('/');
    const name = parts[parts.length - 1]!;
    const errs: string[] = [];
    if (parts.length > 2) errs.push("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character with an optional DNS subdomain prefix and '/'");
    if (parts.length === 2 && !DNS1123_SUBDOMAIN.test(parts[0]!)) errs.push('prefix part must be a lowercase RFC 1123 subdomain');
    if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name)) errs.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
    return errs;
  },
  labelValue: rx(LABEL_VALUE, 63, 'valid label', "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"),
  uri: (s) => (/^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$|^\/\S*$/.test(s) ? [] : ['invalid URI']),
  uuid: (s) => (/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s) ? [] : ['does not match the UUID format']),
  byte: (s) => (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s) ? [] : ['invalid base64']),
  date: (s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid date']),
  datetime: (s) => (/^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) ? [] : ['invalid datetime']),
};
FORMATS['dns1123LabelPrefix'] = prefixed(FORMATS['dns1123Label']!);
FORMATS['dns1123SubdomainPrefix'] = prefixed(FORMATS['dns1123Subdomain']!);
FORMATS['dns1035LabelPrefix'] = prefixed(FORMATS['dns1035Label']!);

export class CelFormat extends CelOpaque {
  readonly typeName = 'kubernetes.NamedFormat';
  constructor(readonly name: string) {
    super();
  }
  equals(o: unknown): boolean {
    return o instanceof CelFormat && o.name === this.name;
  }
}

const formatFunctions: FunctionDef[] = [
  global('k8s.format', 'format.named', 1, (n: unknown) => {
    if (typeof n !== 'string') return noOverload('format.named', n);
    return FORMATS[n] ? CelOptional.of(new CelFormat(n)) : CelOptional.NONE;
  }),
  ...Object.keys(FORMATS).map((name) => global('k8s.format', `format.${name}`, 0, () => new CelFormat(name))),
  member('k8s.format', 'validate', 1, (f: unknown, s: unknown) => {
    if (!(f instanceof CelFormat) || typeof s !== 'string') return noOverload('validate', f, s);
    const errs = FORMATS[f.name]!(s);
    return errs.length === 0 ? CelOptional.NONE : CelOptional.of(errs);
  }),
];

// ------------------------------------------------------------------------------------------ authorizer
export interface AuthorizationAttributes {
  kind: 'resource' | 'path';
  serviceAccount?: { namespace: string; name: string };
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
  verb: string;
  fieldSelector?: string;
  labelSelector?: string;
}

export interface AuthorizationDecision {
  decision: 'allow' | 'deny' | 'noOpinion';
  reason?: string;
  error?: string;
}

/** The pluggable authorizer: allow-all, deny-all, or a table (see authorizers below). */
export type AuthorizerFn = (attrs: AuthorizationAttributes) => AuthorizationDecision;

export class CelAuthorizer extends CelOpaque {
  readonly typeName = 'kubernetes.authorization.Authorizer';
  constructor(
    readonly fn: AuthorizerFn,
    readonly attrs: Partial<AuthorizationAttributes> = {},
  ) {
    super();
  }
  equals(o: unknown): boolean {
    return o === this;
  }
}

export class CelAuthzCheck extends CelOpaque {
  readonly typeName = 'kubernetes.authorization.ResourceCheck';
  constructor(
    readonly fn: AuthorizerFn,
    readonly attrs: Partial<AuthorizationAttributes>,
  ) {
    super();
  }
  equals(o: unknown): boolean {
    return o === this;
  }
  with(patch: Partial<AuthorizationAttributes>): CelAuthzCheck {
    return new CelAuthzCheck(this.fn, { ...this.attrs, ...patch });
  }
}

export class CelAuthzDecision extends CelOpaque {
  readonly typeName = 'kubernetes.authorization.Decision';
  constructor(readonly d: AuthorizationDecision) {
    super();
  }
  equals(o: unknown): boolean {
    return o === this;
  }
}

export const authorizers = {
  allowAll: ((): AuthorizationDecision => ({ decision: 'allow', reason: 'allow-all authorizer' })) as AuthorizerFn,
  denyAll: ((): AuthorizationDecision => ({ decision: 'deny', reason: 'deny-all authorizer' })) as AuthorizerFn,
  /** First matching row wins; fields left out (or "*") match anything; no row matches → noOpinion (denied). */
  table(rows: (Partial<AuthorizationAttributes> & { allowed: boolean; reason?: string })[]): AuthorizerFn {
    return (a) => {
      for (const r of rows) {
        const keys = ['kind', 'group', 'resource', 'subresource', 'namespace', 'name', 'path', 'verb'] as const;
        if (keys.every((k) => r[k] === undefined || r[k] === '*' || r[k] === a[k])) {
          return { decision: r.allowed ? 'allow' : 'deny', reason: r.reason ?? '' };
        }
      }
      return { decision: 'noOpinion', reason: 'no rule matched' };
    };
  },
};

/** The CEL value for the `authorizer` variable. */
export function authorizerValue(fn: AuthorizerFn): CelAuthorizer {
  return new CelAuthorizer(fn);
}

function str(fn: string, v: unknown): string {
  if (typeof v !== 'string') return noOverload(fn, v);
  return v;
}

function checkArg(fn: string, v: unknown): CelAuthzCheck {
  if (v instanceof CelAuthzCheck) return v;
  if (v instanceof CelAuthorizer) return new CelAuthzCheck(v.fn, { ...v.attrs });
  return noOverload(fn, v);
}

const authzFunctions: FunctionDef[] = [
  member('k8s.authz', 'group', 1, (a: unknown, g: unknown) => checkArg('group', a).with({ kind: 'resource', group: str('group', g) })),
  member('k8s.authz', 'resource', 1, (a: unknown, r: unknown) => checkArg('resource', a).with({ kind: 'resource', resource: str('resource', r) })),
  member('k8s.authz', 'subresource', 1, (a: unknown, r: unknown) => checkArg('subresource', a).with({ subresource: str('subresource', r) })),
  member('k8s.authz', 'namespace', 1, (a: unknown, r: unknown) => checkArg('namespace', a).with({ namespace: str('namespace', r) })),
  member('k8s.authz', 'name', 1, (a: unknown, r: unknown) => checkArg('name', a).with({ name: str('name', r) })),
  member('k8s.authz', 'path', 1, (a: unknown, p: unknown) => checkArg('path', a).with({ kind: 'path', path: str('path', p) })),
  member('k8s.authz', 'fieldSelector', 1, (a: unknown, p: unknown) => checkArg('fieldSelector', a).with({ fieldSelector: str('fieldSelector', p) })),
  member('k8s.authz', 'labelSelector', 1, (a: unknown, p: unknown) => checkArg('labelSelector', a).with({ labelSelector: str('labelSelector', p) })),
  member('k8s.authz', 'serviceAccount', 2, (a: unknown, ns: unknown, n: unknown) => {
    if (!(a instanceof CelAuthorizer)) return noOverload('serviceAccount', a);
    return new CelAuthorizer(a.fn, { ...a.attrs, serviceAccount: { namespace: str('serviceAccount', ns), name: str('serviceAccount', n) } });
  }),
  member('k8s.authz', 'check', 1, (a: unknown, verb: unknown) => {
    const c = checkArg('check', a);
    const attrs = { kind: 'resource', ...c.attrs, verb: str('check', verb) } as AuthorizationAttributes;
    return new CelAuthzDecision(c.fn(attrs));
  }),
  member('k8s.authz', 'allowed', 0, (d: unknown) => (d instanceof CelAuthzDecision ? d.d.decision === 'allow' : noOverload('allowed', d))),
  member('k8s.authz', 'reason', 0, (d: unknown) => (d instanceof CelAuthzDecision ? (d.d.reason ?? '') : noOverload('reason', d))),
  member('k8s.authz', 'errored', 0, (d: unknown) => (d instanceof CelAuthzDecision ? d.d.error !== undefined : noOverload('errored', d))),
  member('k8s.authz', 'error', 0, (d: unknown) => (d instanceof CelAuthzDecision ? (d.d.error ?? '') : noOverload('error', d))),
];

export const k8sFunctions: FunctionDef[] = [
  global('k8s.jsonpatch', 'jsonpatch.escapeKey', 1, escapeKey),
  member('k8s.regex', 'find', 1, (s: unknown, p: unknown) => findAll(s, p, 1)[0] ?? ''),
  member('k8s.regex', 'findAll', [1, 2], findAll),
  ...quantityFunctions,
  ...semverFunctions,
  ...formatFunctions,
  ...authzFunctions,
  ...ipFunctions,
  ...urlFunctions,
];
