/**
 * Kubernetes IP, CIDR and URL libraries (apiserver/pkg/cel/library/ip.go, cidr.go, urls.go).
 * Addresses are bigints with a family; parsing follows Go's netip rules as Kubernetes uses them
 * (no zones; IPv4-mapped IPv6 addresses rejected by ip()/cidr()).
 */
import { global, member, type FunctionDef } from '../registry.js';
import { CelOpaque, CelOptional, MapBuilder, err, noOverload } from '../values.js';

// ------------------------------------------------------------------------------------------ addresses
interface Addr {
  family: 4 | 6;
  value: bigint;
}

function parseV4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p[0] === '0')) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

function parseV6(s: string): bigint | undefined {
  if (s.includes('%')) return undefined;
  let tail: bigint | undefined;
  let text = s;
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    tail = parseV4(s.slice(lastColon + 1));
    if (tail === undefined) return undefined;
    text = s.slice(0, lastColon + 1) + '0:0';
  }
  const dbl = text.split('::');
  if (dbl.length > 2) return undefined;
  const head = dbl[0] === '' ? [] : dbl[0]!.split(':');
  const rest = dbl.length === 2 ? (dbl[1] === '' ? [] : dbl[1]!.split(':')) : [];
  const groups = dbl.length === 2 ? [...head, ...Array(8 - head.length - rest.length).fill('0'), ...rest] : head;
  if (groups.length !== 8 || (dbl.length === 2 && head.length + rest.length > 7)) return undefined;
  let v = 0n;
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    v = (v << 16n) | BigInt(parseInt(g, 16));
  }
  if (tail !== undefined) v = (v & ~0xffffffffn) | tail;
  return v;
}

function parseAddr(s: string): Addr | undefined {
  if (s.includes(':')) {
    const v = parseV6(s);
    return v === undefined ? undefined : { family: 6, value: v };
  }
  const v = parseV4(s);
  return v === undefined ? undefined : { family: 4, value: v };
}

function isV4Mapped(a: Addr): boolean {
  return a.family === 6 && a.value >> 32n === 0xffffn;
}

function formatAddr(a: Addr): string {
  if (a.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((a.value >> s) & 255n)).join('.');
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((a.value >> BigInt(i * 16)) & 0xffffn));
  // RFC 5952: compress the longest run (≥ 2) of zero groups.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

export class CelIP extends CelOpaque {
  readonly typeName = 'net.IP';
  constructor(readonly addr: Addr) {
    super();
  }
  equals(o: unknown): boolean {
    return o instanceof CelIP && o.addr.family === this.addr.family && o.addr.value === this.addr.value;
  }
  override toString(): string {
    return formatAddr(this.addr);
  }
}

export class CelCIDR extends CelOpaque {
  readonly typeName = 'net.CIDR';
  constructor(
    readonly addr: Addr,
    readonly prefix: number,
  ) {
    super();
  }
  equals(o: unknown): boolean {
    return o instanceof CelCIDR && o.prefix === this.prefix && new CelIP(o.addr).equals(new CelIP(this.addr));
  }
  override toString(): string {
    return `${formatAddr(this.addr)}/${this.prefix}`;
  }
  bits(): number {
    return this.addr.family === 4 ? 32 : 128;
  }
  mask(): bigint {
    const b = BigInt(this.bits());
    return ((1n << b) - 1n) ^ ((1n << (b - BigInt(this.prefix))) - 1n);
  }
}

function toIP(s: unknown): CelIP {
  if (typeof s !== 'string') return noOverload('ip', s);
  const a = parseAddr(s);
  if (!a) err(`IP Address "${s}" parse error during conversion from string: ParseAddr("${s}"): unable to parse IP`);
  if (isV4Mapped(a)) err(`IPv4-mapped IPv6 address "${s}" is not allowed`);
  return new CelIP(a);
}

function toCIDR(s: unknown): CelCIDR {
  if (typeof s !== 'string') return noOverload('cidr', s);
  const m = /^(.*)\/(\d{1,3})$/.exec(s);
  const a = m ? parseAddr(m[1]!) : undefined;
  const prefix = m ? Number(m[2]) : -1;
  if (!m || !a || prefix > (a.family === 4 ? 32 : 128) || (m[2]!.length > 1 && m[2]![0] === '0')) err(`network address parse error during conversion from string: ParsePrefix("${s}"): invalid`);
  if (isV4Mapped(a)) err(`IPv4-mapped IPv6 address "${s}" is not allowed`);
  return new CelCIDR(a, prefix);
}

function ipArg(fn: string, v: unknown): CelIP {
  if (v instanceof CelIP) return v;
  return noOverload(fn, v);
}

function cidrArg(fn: string, v: unknown): CelCIDR {
  if (v instanceof CelCIDR) return v;
  return noOverload(fn, v);
}

function v4Range(a: Addr, net: bigint, bits: number): boolean {
  return a.family === 4 && a.value >> BigInt(32 - bits) === net >> BigInt(32 - bits);
}

function v6Range(a: Addr, net: bigint, bits: number): boolean {
  return a.family === 6 && a.value >> BigInt(128 - bits) === net >> BigInt(128 - bits);
}

function containsAddr(c: CelCIDR, a: Addr): boolean {
  if (a.family !== c.addr.family) return false;
  return (a.value & c.mask()) === (c.addr.value & c.mask());
}

export const ipFunctions: FunctionDef[] = [
  global('k8s.ip', 'ip', 1, toIP),
  global('k8s.ip', 'isIP', 1, (s: unknown) => {
    if (typeof s !== 'string') return noOverload('isIP', s);
    const a = parseAddr(s);
    return a !== undefined && !isV4Mapped(a);
  }),
  global('k8s.ip', 'ip.isCanonical', 1, (s: unknown) => toIP(s).toString() === s),
  member('k8s.ip', 'family', 0, (v: unknown) => ipArg('family', v).addr.family, { recv: ['opaque'] }),
  member('k8s.ip', 'isUnspecified', 0, (v: unknown) => ipArg('isUnspecified', v).addr.value === 0n),
  member('k8s.ip', 'isLoopback', 0, (v: unknown) => {
    const a = ipArg('isLoopback', v).addr;
    return a.family === 4 ? v4Range(a, 0x7f000000n, 8) : a.value === 1n;
  }),
  member('k8s.ip', 'isLinkLocalMulticast', 0, (v: unknown) => {
    const a = ipArg('isLinkLocalMulticast', v).addr;
    return a.family === 4 ? v4Range(a, 0xe0000000n, 24) : (a.value >> 112n) === 0xff02n || ((a.value >> 112n) & 0xff0fn) === 0xff02n;
  }),
  member('k8s.ip', 'isLinkLocalUnicast', 0, (v: unknown) => {
    const a = ipArg('isLinkLocalUnicast', v).addr;
    return a.family === 4 ? v4Range(a, 0xa9fe0000n, 16) : v6Range(a, 0xfe80n << 112n, 10);
  }),
  member('k8s.ip', 'isGlobalUnicast', 0, (v: unknown) => {
    const a = ipArg('isGlobalUnicast', v).addr;
    if (a.family === 4) {
      if (a.value === 0xffffffffn || a.value === 0n) return false;
      return !v4Range(a, 0x7f000000n, 8) && !v4Range(a, 0xa9fe0000n, 16) && !v4Range(a, 0xe0000000n, 4);
    }
    if (a.value === 0n || a.value === 1n) return false;
    return !v6Range(a, 0xfe80n << 112n, 10) && !v6Range(a, 0xffn << 120n, 8);
  }),
  global('k8s.cidr', 'cidr', 1, toCIDR),
  global('k8s.cidr', 'isCIDR', 1, (s: unknown) => {
    try {
      toCIDR(s);
      return true;
    } catch {
      return false;
    }
  }),
  member('k8s.cidr', 'containsIP', 1, (c: unknown, ip: unknown) => containsAddr(cidrArg('containsIP', c), (typeof ip === 'string' ? toIP(ip) : ipArg('containsIP', ip)).addr)),
  member('k8s.cidr', 'containsCIDR', 1, (c: unknown, o: unknown) => {
    const outer = cidrArg('containsCIDR', c);
    const inner = typeof o === 'string' ? toCIDR(o) : cidrArg('containsCIDR', o);
    return inner.prefix >= outer.prefix && containsAddr(outer, inner.addr);
  }),
  member('k8s.cidr', 'ip', 0, (c: unknown) => new CelIP(cidrArg('ip', c).addr)),
  member('k8s.cidr', 'masked', 0, (c: unknown) => {
    const x = cidrArg('masked', c);
    return new CelCIDR({ family: x.addr.family, value: x.addr.value & x.mask() }, x.prefix);
  }),
  member('k8s.cidr', 'prefixLength', 0, (c: unknown) => cidrArg('prefixLength', c).prefix),
];

// ------------------------------------------------------------------------------------------ URLs
export class CelURL extends CelOpaque {
  readonly typeName = 'kubernetes.URL';
  constructor(
    readonly raw: string,
    readonly scheme: string,
    readonly host: string,
    readonly path: string,
    readonly query: string,
  ) {
    super();
  }
  equals(o: unknown): boolean {
    return o instanceof CelURL && o.raw === this.raw;
  }
  override toString(): string {
    return this.raw;
  }
}

/** Go's url.ParseRequestURI: an absolute URL or an absolute path; no fragment handling. */
function parseURL(s: string): CelURL | undefined {
  if (s.startsWith('/')) {
    const q = s.indexOf('?');
    return new CelURL(s, '', '', q < 0 ? s : s.slice(0, q), q < 0 ? '' : s.slice(q + 1));
  }
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(s);
  if (!m) return undefined;
  const scheme = m[1]!.toLowerCase();
  let rest = m[2]!;
  let query = '';
  const qi = rest.indexOf('?');
  if (qi >= 0) {
    query = rest.slice(qi + 1);
    rest = rest.slice(0, qi);
  }
  if (!rest.startsWith('//')) {
    if (!rest.startsWith('/')) return undefined;
    return new CelURL(s, scheme, '', rest, query);
  }
  rest = rest.slice(2);
  const slash = rest.indexOf('/');
  let host = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '' : rest.slice(slash);
  const at = host.lastIndexOf('@');
  if (at >= 0) host = host.slice(at + 1);
  if (/[\s]/.test(host)) return undefined;
  if (host.startsWith('[') && !/^\[[0-9a-fA-F:.]+\](?::\d*)?$/.test(host)) return undefined;
  return new CelURL(s, scheme, host, path, query);
}

function urlArg(fn: string, v: unknown): CelURL {
  if (v instanceof CelURL) return v;
  return noOverload(fn, v);
}

function hostname(u: CelURL): string {
  const h = u.host;
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
  const c = h.lastIndexOf(':');
  return c >= 0 ? h.slice(0, c) : h;
}

function port(u: CelURL): string {
  const h = u.host;
  const close = h.lastIndexOf(']');
  const c = h.lastIndexOf(':');
  return c > close ? h.slice(c + 1) : '';
}

function decodeQueryComponent(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

export const urlFunctions: FunctionDef[] = [
  global('k8s.urls', 'url', 1, (s: unknown) => {
    if (typeof s !== 'string') return noOverload('url', s);
    const u = parseURL(s);
    if (!u) err(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
    return u;
  }),
  global('k8s.urls', 'isURL', 1, (s: unknown) => (typeof s === 'string' ? parseURL(s) !== undefined : noOverload('isURL', s))),
  member('k8s.urls', 'getScheme', 0, (u: unknown) => urlArg('getScheme', u).scheme),
  member('k8s.urls', 'getHost', 0, (u: unknown) => urlArg('getHost', u).host),
  member('k8s.urls', 'getHostname', 0, (u: unknown) => hostname(urlArg('getHostname', u))),
  member('k8s.urls', 'getPort', 0, (u: unknown) => port(urlArg('getPort', u))),
  member('k8s.urls', 'getEscapedPath', 0, (u: unknown) => urlArg('getEscapedPath', u).path),
  member('k8s.urls', 'getQuery', 0, (u: unknown) => {
    const q = urlArg('getQuery', u).query;
    const groups = new Map<string, string[]>();
    for (const part of q.split('&')) {
      if (part === '') continue;
      const eq = part.indexOf('=');
      const k = decodeQueryComponent(eq < 0 ? part : part.slice(0, eq));
      const v = decodeQueryComponent(eq < 0 ? '' : part.slice(eq + 1));
      const list = groups.get(k);
      if (list) list.push(v);
      else groups.set(k, [v]);
    }
    const b = new MapBuilder();
    for (const [k, v] of groups) b.set(k, v);
    return b.build();
  }),
];

export { CelOptional };
