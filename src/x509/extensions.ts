/**
 * X.509 extensions as crypto/x509 parser.go reads them: the raw list (pkix.Extension), the subject alternative
 * names, and for certificates the fields processExtensions fills. Error texts are Go's.
 */
import { contextTag, DerReader, integerValue, oidString, TAG, type Element } from './der.js';
import { bytes, fail, goUrl, ipNet, ipString, slice, type Json } from './go-json.js';
import { latin1Decode, toHex } from '../util/bytes.js';

export interface Extension {
  id: number[];
  critical: boolean;
  value: Uint8Array;
}

export function extensionJson(e: Extension): Json {
  return { Id: e.id, Critical: e.critical, Value: bytes(e.value) };
}

/** parser.go parseExtension. */
export function parseExtension(seq: DerReader): Extension {
  const id = seq.readOid();
  if (!id) fail('x509: malformed extension OID field');
  let critical = false;
  if (seq.peekTag(TAG.BOOLEAN)) {
    const b = seq.readBoolean();
    if (b === undefined) fail('x509: malformed extension critical field');
    critical = b;
  }
  const value = seq.read(TAG.OCTET_STRING);
  if (!value) fail('x509: malformed extension value field');
  return { id, critical, value: value.contents };
}

export interface SubjectAltNames {
  dnsNames?: string[];
  emailAddresses?: string[];
  ipAddresses?: Uint8Array[];
  uris?: Json[];
}

const isIA5 = (b: Uint8Array) => b.every((x) => x < 0x80);
const latin1 = (b: Uint8Array) => latin1Decode(b);

/** parser.go domainNameValid (with the checks Go currently leaves disabled left out, as Go does). */
function domainNameValid(s: string, constraint: boolean): boolean {
  if (s.length === 0) return true;
  if (s.endsWith('.')) return false;
  if (constraint && s.startsWith('.')) s = s.slice(1);
  return s.split('.').every((label) => label.length > 0 && [...label].every((c) => c.charCodeAt(0) >= 33 && c.charCodeAt(0) <= 126));
}

/** parser.go parseSANExtension. */
export function parseSubjectAltNames(value: Uint8Array): SubjectAltNames {
  const seq = new DerReader(value).enter(TAG.SEQUENCE);
  if (!seq) fail('x509: invalid subject alternative names');
  const out: SubjectAltNames = {};
  while (!seq.empty()) {
    const el = seq.readAny();
    if (!el) fail('x509: invalid subject alternative name');
    const data = el.contents;
    switch (el.tag ^ 0x80) {
      case 1:
        if (!isIA5(data)) fail('x509: SAN rfc822Name is malformed');
        (out.emailAddresses ??= []).push(latin1(data));
        break;
      case 2:
        if (!isIA5(data)) fail('x509: SAN dNSName is malformed');
        (out.dnsNames ??= []).push(latin1(data));
        break;
      case 6: {
        const text = latin1(data);
        if (!isIA5(data)) fail('x509: SAN uniformResourceIdentifier is malformed');
        const url = goUrl(text);
        if (!url) fail(`x509: cannot parse URI ${JSON.stringify(text)}: missing protocol scheme`);
        if (url.Host.length > 0 && !domainNameValid(url.Host, false)) fail(`x509: cannot parse URI ${JSON.stringify(text)}: invalid domain`);
        (out.uris ??= []).push(url.json);
        break;
      }
      case 7:
        if (data.length === 16) {
          if (data.subarray(0, 10).every((b) => b === 0) && data[10] === 0xff && data[11] === 0xff) fail('x509: SAN iPAddress contains IPv4-mapped IPv6 address');
        } else if (data.length !== 4) fail(`x509: cannot parse IP address of length ${data.length}`);
        (out.ipAddresses ??= []).push(data);
        break;
    }
  }
  return out;
}

export function sanJson(s: SubjectAltNames): Record<string, Json> {
  return {
    DNSNames: slice(s.dnsNames, (x) => x),
    EmailAddresses: slice(s.emailAddresses, (x) => x),
    IPAddresses: slice(s.ipAddresses, ipString),
    URIs: slice(s.uris, (x) => x),
  };
}

/** The certificate fields processExtensions fills, with their zero values. */
export interface ExtensionFields {
  KeyUsage: number;
  UnhandledCriticalExtensions?: number[][];
  ExtKeyUsage?: number[];
  UnknownExtKeyUsage?: number[][];
  BasicConstraintsValid: boolean;
  IsCA: boolean;
  MaxPathLen: number;
  MaxPathLenZero: boolean;
  SubjectKeyId?: Uint8Array;
  AuthorityKeyId?: Uint8Array;
  OCSPServer?: string[];
  IssuingCertificateURL?: string[];
  san: SubjectAltNames;
  PermittedDNSDomainsCritical: boolean;
  constraints: Record<'Permitted' | 'Excluded', { dns?: string[]; ips?: Json[]; emails?: string[]; uris?: string[] }>;
  CRLDistributionPoints?: string[];
  PolicyIdentifiers?: number[][];
  Policies?: string[];
  InhibitAnyPolicy: number;
  InhibitAnyPolicyZero: boolean;
  InhibitPolicyMapping: number;
  InhibitPolicyMappingZero: boolean;
  RequireExplicitPolicy: number;
  RequireExplicitPolicyZero: boolean;
  PolicyMappings?: Json[];
}

/** ExtKeyUsage enum order (x509.go extKeyUsageOIDs). */
const EXT_KEY_USAGES = [
  '2.5.29.37.0',
  '1.3.6.1.5.5.7.3.1',
  '1.3.6.1.5.5.7.3.2',
  '1.3.6.1.5.5.7.3.3',
  '1.3.6.1.5.5.7.3.4',
  '1.3.6.1.5.5.7.3.5',
  '1.3.6.1.5.5.7.3.6',
  '1.3.6.1.5.5.7.3.7',
  '1.3.6.1.5.5.7.3.8',
  '1.3.6.1.5.5.7.3.9',
  '1.3.6.1.4.1.311.10.3.3',
  '2.16.840.1.113730.4.1',
  '1.3.6.1.4.1.311.2.1.22',
  '1.3.6.1.4.1.311.61.1.1',
];

const AIA = '1.3.6.1.5.5.7.1.1';
const AIA_OCSP = '1.3.6.1.5.5.7.48.1';
const AIA_ISSUERS = '1.3.6.1.5.5.7.48.2';

function readInt(r: DerReader, tag: number, message: string): number {
  const el = r.read(tag);
  const v = el && integerValue(el.contents);
  if (v === undefined || v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) fail(message);
  return Number(v);
}

/** parser.go processExtensions. */
export function processExtensions(extensions: readonly Extension[]): ExtensionFields {
  const out: ExtensionFields = {
    KeyUsage: 0,
    BasicConstraintsValid: false,
    IsCA: false,
    MaxPathLen: 0,
    MaxPathLenZero: false,
    san: {},
    PermittedDNSDomainsCritical: false,
    constraints: { Permitted: {}, Excluded: {} },
    InhibitAnyPolicy: 0,
    InhibitAnyPolicyZero: false,
    InhibitPolicyMapping: 0,
    InhibitPolicyMappingZero: false,
    RequireExplicitPolicy: 0,
    RequireExplicitPolicyZero: false,
  };
  for (const e of extensions) {
    let unhandled = false;
    const id = e.id;
    const value = new DerReader(e.value);
    if (id.length === 4 && id[0] === 2 && id[1] === 5 && id[2] === 29) {
      switch (id[3]) {
        case 15: {
          const bits = value.readBitString();
          if (!bits) fail('x509: invalid key usage');
          let usage = 0;
          for (let i = 0; i < 9; i++) {
            const byte = bits.bytes[i >> 3];
            if (i < bits.bitLength && byte !== undefined && (byte >> (7 - (i & 7))) & 1) usage |= 1 << i;
          }
          out.KeyUsage = usage;
          break;
        }
        case 19: {
          const seq = value.enter(TAG.SEQUENCE);
          if (!seq) fail('x509: invalid basic constraints');
          let isCA = false;
          if (seq.peekTag(TAG.BOOLEAN)) {
            const b = seq.readBoolean();
            if (b === undefined) fail('x509: invalid basic constraints');
            isCA = b;
          }
          let maxPathLen = -1;
          if (seq.peekTag(TAG.INTEGER)) {
            const v = seq.readInteger();
            if (v === undefined || v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) fail('x509: invalid basic constraints');
            maxPathLen = Number(v);
          }
          out.IsCA = isCA;
          out.MaxPathLen = maxPathLen;
          out.BasicConstraintsValid = true;
          out.MaxPathLenZero = maxPathLen === 0;
          break;
        }
        case 17: {
          out.san = parseSubjectAltNames(e.value);
          const s = out.san;
          if (!s.dnsNames && !s.emailAddresses && !s.ipAddresses && !s.uris) unhandled = true;
          break;
        }
        case 30:
          unhandled = parseNameConstraints(out, e);
          break;
        case 31:
          parseCrlDistributionPoints(out, value);
          break;
        case 35: {
          if (e.critical) fail('x509: authority key identifier incorrectly marked critical');
          const akid = value.enter(TAG.SEQUENCE);
          if (!akid) fail('x509: invalid authority key identifier');
          if (akid.peekTag(contextTag(0))) {
            const key = akid.read(contextTag(0));
            if (!key) fail('x509: invalid authority key identifier');
            out.AuthorityKeyId = key.contents;
          }
          break;
        }
        case 36: {
          const seq = value.enter(TAG.SEQUENCE);
          if (!seq) fail('x509: invalid policy constraints extension');
          if (seq.peekTag(contextTag(0))) {
            out.RequireExplicitPolicy = readInt(seq, contextTag(0), 'x509: invalid policy constraints extension');
            out.RequireExplicitPolicyZero = out.RequireExplicitPolicy === 0;
          }
          if (seq.peekTag(contextTag(1))) {
            out.InhibitPolicyMapping = readInt(seq, contextTag(1), 'x509: invalid policy constraints extension');
            out.InhibitPolicyMappingZero = out.InhibitPolicyMapping === 0;
          }
          break;
        }
        case 37: {
          const seq = value.enter(TAG.SEQUENCE);
          if (!seq) fail('x509: invalid extended key usages');
          while (!seq.empty()) {
            const oid = seq.readOid();
            if (!oid) fail('x509: invalid extended key usages');
            const known = EXT_KEY_USAGES.indexOf(oidString(oid));
            if (known >= 0) (out.ExtKeyUsage ??= []).push(known);
            else (out.UnknownExtKeyUsage ??= []).push(oid);
          }
          break;
        }
        case 14: {
          if (e.critical) fail('x509: subject key identifier incorrectly marked critical');
          const skid = value.read(TAG.OCTET_STRING);
          if (!skid) fail('x509: invalid subject key identifier');
          out.SubjectKeyId = skid.contents;
          break;
        }
        case 32:
          parsePolicies(out, value);
          break;
        case 33: {
          const seq = value.enter(TAG.SEQUENCE);
          if (!seq) fail('x509: invalid policy mappings extension');
          while (!seq.empty()) {
            const m = seq.enter(TAG.SEQUENCE);
            const issuer = m?.readOid();
            const subject = m?.readOid();
            if (!issuer || !subject) fail('x509: invalid policy mappings extension');
            (out.PolicyMappings ??= []).push({ IssuerDomainPolicy: oidString(issuer), SubjectDomainPolicy: oidString(subject) });
          }
          break;
        }
        case 54:
          out.InhibitAnyPolicy = readInt(value, TAG.INTEGER, 'x509: invalid inhibit any policy extension');
          out.InhibitAnyPolicyZero = out.InhibitAnyPolicy === 0;
          break;
        default:
          unhandled = true;
      }
    } else if (oidString(id) === AIA) {
      if (e.critical) fail('x509: authority info access incorrectly marked critical');
      const seq = value.enter(TAG.SEQUENCE);
      if (!seq) fail('x509: invalid authority info access');
      while (!seq.empty()) {
        const aia = seq.enter(TAG.SEQUENCE);
        const method = aia?.readOid();
        if (!aia || !method) fail('x509: invalid authority info access');
        if (!aia.peekTag(contextTag(6))) continue;
        const location = aia.read(contextTag(6));
        if (!location) fail('x509: invalid authority info access');
        const m = oidString(method);
        if (m === AIA_OCSP) (out.OCSPServer ??= []).push(latin1(location.contents));
        else if (m === AIA_ISSUERS) (out.IssuingCertificateURL ??= []).push(latin1(location.contents));
      }
    } else unhandled = true;
    if (e.critical && unhandled) (out.UnhandledCriticalExtensions ??= []).push(id);
  }
  return out;
}

function parseCrlDistributionPoints(out: ExtensionFields, value: DerReader): void {
  const seq = value.enter(TAG.SEQUENCE);
  if (!seq) fail('x509: invalid CRL distribution points');
  while (!seq.empty()) {
    const dp = seq.enter(TAG.SEQUENCE);
    if (!dp) fail('x509: invalid CRL distribution point');
    const name = dp.optional(contextTag(0, true));
    if (name === undefined) fail('x509: invalid CRL distribution point');
    if (name === null) continue;
    const full = new DerReader(name.contents).enter(contextTag(0, true));
    if (!full) fail('x509: invalid CRL distribution point');
    while (!full.empty()) {
      if (!full.peekTag(contextTag(6))) break;
      const uri = full.read(contextTag(6));
      if (!uri) fail('x509: invalid CRL distribution point');
      (out.CRLDistributionPoints ??= []).push(latin1(uri.contents));
    }
  }
}

function parsePolicies(out: ExtensionFields, value: DerReader): void {
  const seq = value.enter(TAG.SEQUENCE);
  if (!seq) fail('x509: invalid certificate policies');
  const seen = new Set<string>();
  const policies: string[] = [];
  const identifiers: number[][] = [];
  while (!seq.empty()) {
    const oidEl = seq.enter(TAG.SEQUENCE)?.read(TAG.OID);
    if (!oidEl) fail('x509: invalid certificate policies');
    const key = toHex(oidEl.contents);
    if (seen.has(key)) fail('x509: invalid certificate policies');
    seen.add(key);
    const arcs = arbitraryOid(oidEl.contents);
    if (!arcs) fail('x509: invalid certificate policies');
    policies.push(arcs.join('.'));
    // PolicyIdentifiers keeps the OIDs asn1.ObjectIdentifier can hold (arcs within int32).
    if (arcs.every((a) => a <= 0x7fffffffn)) identifiers.push(arcs.map(Number));
  }
  out.Policies = policies;
  out.PolicyIdentifiers = identifiers;
}

/** x509.OID (newOIDFromDER): arcs of any size. */
function arbitraryOid(b: Uint8Array): bigint[] | undefined {
  if (b.length === 0 || (b[b.length - 1]! & 0x80) !== 0) return undefined;
  const arcs: bigint[] = [];
  let v = 0n;
  let start = true;
  for (const byte of b) {
    if (start && byte === 0x80) return undefined;
    start = false;
    v = (v << 7n) | BigInt(byte & 0x7f);
    if ((byte & 0x80) === 0) {
      if (arcs.length === 0) {
        if (v < 80n) arcs.push(v / 40n, v % 40n);
        else arcs.push(2n, v - 80n);
      } else arcs.push(v);
      v = 0n;
      start = true;
    }
  }
  return arcs;
}

/** parser.go parseNameConstraintsExtension; answers whether some subtree had a type Go does not handle. */
function parseNameConstraints(out: ExtensionFields, e: Extension): boolean {
  const outer = new DerReader(e.value);
  const top = outer.enter(TAG.SEQUENCE);
  if (!top || !outer.empty()) fail('x509: invalid NameConstraints extension');
  const permitted = top.optional(contextTag(0, true));
  const excluded = permitted === undefined ? undefined : top.optional(contextTag(1, true));
  if (permitted === undefined || excluded === undefined || !top.empty()) fail('x509: invalid NameConstraints extension');
  if (!permitted && !excluded) fail('x509: empty name constraints extension');
  if ((permitted && permitted.contents.length === 0) || (excluded && excluded.contents.length === 0)) fail('x509: empty name constraints subtree sequence');
  let unhandled = false;
  const values = (subtrees: Element | null, into: ExtensionFields['constraints']['Permitted']) => {
    if (!subtrees) return;
    const r = new DerReader(subtrees.contents);
    while (!r.empty()) {
      const base = r.enter(TAG.SEQUENCE)?.readAny();
      if (!base) fail('x509: invalid NameConstraints extension');
      const v = base.contents;
      const text = latin1(v);
      switch (base.tag) {
        case contextTag(2):
          if (!isIA5(v)) fail('x509: invalid constraint value: asn1: IA5String contains invalid character');
          if (!domainNameValid(text, true)) fail(`x509: failed to parse dnsName constraint ${JSON.stringify(text)}`);
          (into.dns ??= []).push(text);
          break;
        case contextTag(7): {
          if (v.length !== 8 && v.length !== 32) fail(`x509: IP constraint contained value of length ${v.length}`);
          const half = v.length / 2;
          (into.ips ??= []).push(ipNet(v.subarray(0, half), v.subarray(half)));
          break;
        }
        case contextTag(1):
          if (!isIA5(v)) fail('x509: invalid constraint value: asn1: IA5String contains invalid character');
          (into.emails ??= []).push(text);
          break;
        case contextTag(6):
          if (!isIA5(v)) fail('x509: invalid constraint value: asn1: IA5String contains invalid character');
          if (!domainNameValid(text, true)) fail(`x509: failed to parse URI constraint ${JSON.stringify(text)}`);
          (into.uris ??= []).push(text);
          break;
        default:
          unhandled = true;
      }
    }
  };
  values(permitted, out.constraints.Permitted);
  values(excluded, out.constraints.Excluded);
  out.PermittedDNSDomainsCritical = e.critical;
  return unhandled;
}

export function extensionFieldsJson(f: ExtensionFields): Record<string, Json> {
  const c = f.constraints;
  return {
    KeyUsage: f.KeyUsage,
    UnhandledCriticalExtensions: slice(f.UnhandledCriticalExtensions, (x) => x),
    ExtKeyUsage: slice(f.ExtKeyUsage, (x) => x),
    UnknownExtKeyUsage: slice(f.UnknownExtKeyUsage, (x) => x),
    BasicConstraintsValid: f.BasicConstraintsValid,
    IsCA: f.IsCA,
    MaxPathLen: f.MaxPathLen,
    MaxPathLenZero: f.MaxPathLenZero,
    SubjectKeyId: bytes(f.SubjectKeyId),
    AuthorityKeyId: bytes(f.AuthorityKeyId),
    OCSPServer: slice(f.OCSPServer, (x) => x),
    IssuingCertificateURL: slice(f.IssuingCertificateURL, (x) => x),
    ...sanJson(f.san),
    PermittedDNSDomainsCritical: f.PermittedDNSDomainsCritical,
    PermittedDNSDomains: slice(c.Permitted.dns, (x) => x),
    ExcludedDNSDomains: slice(c.Excluded.dns, (x) => x),
    PermittedIPRanges: slice(c.Permitted.ips, (x) => x),
    ExcludedIPRanges: slice(c.Excluded.ips, (x) => x),
    PermittedEmailAddresses: slice(c.Permitted.emails, (x) => x),
    ExcludedEmailAddresses: slice(c.Excluded.emails, (x) => x),
    PermittedURIDomains: slice(c.Permitted.uris, (x) => x),
    ExcludedURIDomains: slice(c.Excluded.uris, (x) => x),
    CRLDistributionPoints: slice(f.CRLDistributionPoints, (x) => x),
    PolicyIdentifiers: slice(f.PolicyIdentifiers, (x) => x),
    Policies: slice(f.Policies, (x) => x),
    InhibitAnyPolicy: f.InhibitAnyPolicy,
    InhibitAnyPolicyZero: f.InhibitAnyPolicyZero,
    InhibitPolicyMapping: f.InhibitPolicyMapping,
    InhibitPolicyMappingZero: f.InhibitPolicyMappingZero,
    RequireExplicitPolicy: f.RequireExplicitPolicy,
    RequireExplicitPolicyZero: f.RequireExplicitPolicyZero,
    PolicyMappings: slice(f.PolicyMappings, (x) => x),
  };
}
