/**
 * How Go's encoding/json renders the values inside x509.Certificate / CertificateRequest, after Kyverno's
 * encode() round trip through map[string]interface{} (functions.go): []byte is standard base64 (nil is null),
 * time.Time is RFC 3339 with nanoseconds, net.IP its String(), big.Int and every other number a float64,
 * x509.OID its dotted text, asn1.ObjectIdentifier a list of numbers, structs objects with the field names.
 */
import { bitStringValue, integerValue, oidValue, TAG, type Element } from './der.js';
import { latin1Decode, toBase64, toHex, utf8Decode } from '../util/bytes.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type { Json };

/**
 * A parse error carrying Go's message. Thrown inside the x509 parser only and caught by decodeX509, its single
 * entry point, which answers it as a value: the parsers have dozens of failure points, as Go's have.
 */
export class X509Error {
  constructor(readonly message: string) {}
}

export function fail(message: string): never {
  throw new X509Error(message);
}

export function bytes(b: Uint8Array | undefined): Json {
  return b === undefined ? null : toBase64(b);
}

/** A Go slice: nil (null) until something is appended. */
export function slice<T>(items: T[] | undefined, render: (item: T) => Json): Json {
  return items === undefined ? null : items.map(render);
}

// ---------------------------------------------------------------------------------------------- time

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  if (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) return 29;
  return DAYS[month - 1]!;
}

/**
 * cryptobyte ReadASN1UTCTime / ReadASN1GeneralizedTime: time.Parse with "060102150405Z0700" (or minute
 * precision) / "20060102150405.999999999Z0700", then the text must be what Format gives back (so "Z", never
 * "+0000", and no trailing zeros in fractions). Years of UTCTime below 50 are 20xx. Answers RFC 3339 text in
 * the parsed offset, as time.Time's MarshalJSON writes it.
 */
export function asn1Time(el: Element): string | undefined {
  const text = latin1Decode(el.contents);
  const m =
    el.tag === TAG.UTCTime
      ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(Z|[+-]\d{4})$/.exec(text)
      : el.tag === TAG.GeneralizedTime
        ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{4})$/.exec(text)
        : null;
  if (!m) return undefined;
  const utc = el.tag === TAG.UTCTime;
  let year = Number(m[1]);
  if (utc) year += year < 50 ? 2000 : 1900;
  const [month, day, hour, minute] = [m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const fraction = utc ? undefined : m[7];
  const zone = utc ? m[7]! : m[8]!;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  if (fraction !== undefined && fraction.endsWith('0')) return undefined;
  if (zone !== 'Z' && (zone.slice(1) === '0000' || Number(zone.slice(3)) > 59)) return undefined;
  const p2 = (n: number) => String(n).padStart(2, '0');
  const date = `${String(year).padStart(4, '0')}-${p2(month)}-${p2(day)}T${p2(hour)}:${p2(minute)}:${p2(second)}`;
  const frac = fraction === undefined ? '' : `.${fraction}`;
  return `${date}${frac}${zone === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(3)}`}`;
}

// ---------------------------------------------------------------------------------------------- addresses

/** net.IP.String: dotted quad for 4 bytes (or IPv4-mapped 16), RFC 5952 text for 16, "?" + hex otherwise. */
export function ipString(ip: Uint8Array): string {
  if (ip.length === 0) return '<nil>';
  if (ip.length === 4) return Array.from(ip).join('.');
  if (ip.length !== 16) return `?${toHex(ip)}`;
  if (ip.subarray(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff) return Array.from(ip.subarray(12)).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((ip[i]! << 8) | ip[i + 1]!);
  // The first longest run of at least two zero groups becomes "::".
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i >= 2 && j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
  if (best < 0) return hex(groups);
  return `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
}

/** *net.IPNet: {IP, Mask}; IPMask is a plain []byte, so base64. */
export function ipNet(ip: Uint8Array, mask: Uint8Array): Json {
  return { IP: ipString(ip), Mask: bytes(mask) };
}

/**
 * *url.URL as encoding/json writes the struct (it has no MarshalJSON). A compact reading of url.Parse for the
 * URIs certificates carry: scheme, opaque part, authority, path, query, fragment. RawPath and RawFragment (set
 * only when the escaping is not the default one) stay empty.
 */
export function goUrl(raw: string): { Host: string; json: Json } | undefined {
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = unescape(rest.slice(hash + 1));
    rest = rest.slice(0, hash);
  }
  let scheme = '';
  const sm = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (sm) {
    scheme = sm[1]!.toLowerCase();
    rest = rest.slice(sm[0].length);
  } else if (/^[^/?]*:/.test(rest)) return undefined; // "missing protocol scheme" / first path segment with a colon
  let rawQuery = '';
  let forceQuery = false;
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    forceQuery = rawQuery === '';
    rest = rest.slice(0, q);
  }
  let opaque = '';
  let user: Json = null;
  let host = '';
  if (scheme !== '' && !rest.startsWith('/')) {
    opaque = rest;
    rest = '';
  } else if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    if (at >= 0) user = {};
    host = unescape(at >= 0 ? authority.slice(at + 1) : authority);
  }
  const path = unescape(rest);
  return {
    Host: host,
    json: {
      Scheme: scheme,
      Opaque: opaque,
      User: user,
      Host: host,
      Path: path,
      RawPath: '',
      OmitHost: false,
      ForceQuery: forceQuery,
      RawQuery: rawQuery,
      Fragment: fragment,
      RawFragment: '',
    },
  };
}

function unescape(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// ---------------------------------------------------------------------------------------------- names

/** ASN.1 string types as crypto/x509 parseASN1String decodes them; undefined when invalid. */
export function asn1String(tag: number, v: Uint8Array): string | undefined {
  switch (tag) {
    case TAG.T61String:
      return latin1Decode(v);
    case TAG.PrintableString:
      return v.every(isPrintable) ? latin1Decode(v) : undefined;
    case TAG.UTF8String: {
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(v);
      } catch {
        return undefined;
      }
    }
    case TAG.BMPString: {
      if (v.length % 2 !== 0) return undefined;
      let end = v.length;
      if (end >= 2 && v[end - 1] === 0 && v[end - 2] === 0) end -= 2;
      let out = '';
      for (let i = 0; i < end; i += 2) {
        const point = (v[i]! << 8) | v[i + 1]!;
        if (point === 0xfffe || point === 0xffff || (point >= 0xfdd0 && point <= 0xfdef) || (point >= 0xd800 && point <= 0xdfff)) return undefined;
        out += String.fromCharCode(point);
      }
      return out;
    }
    case TAG.IA5String:
      return v.every((b) => b < 0x80) ? latin1Decode(v) : undefined;
    case TAG.NumericString:
      return v.every((b) => (b >= 0x30 && b <= 0x39) || b === 0x20) ? latin1Decode(v) : undefined;
  }
  return undefined;
}

/** parser.go isPrintable: PrintableString plus '*' and '&', which real certificates use. */
function isPrintable(b: number): boolean {
  return (
    (b >= 0x61 && b <= 0x7a) ||
    (b >= 0x41 && b <= 0x5a) ||
    (b >= 0x30 && b <= 0x39) ||
    (b >= 0x27 && b <= 0x29) ||
    (b >= 0x2b && b <= 0x2f) ||
    b === 0x20 ||
    b === 0x3a ||
    b === 0x3d ||
    b === 0x3f ||
    b === 0x2a ||
    b === 0x26
  );
}

const STRING_TAGS: ReadonlySet<number> = new Set([TAG.T61String, TAG.PrintableString, TAG.UTF8String, TAG.BMPString, TAG.IA5String, TAG.NumericString]);
const STRING_ERRORS: Record<number, string> = {
  [TAG.PrintableString]: 'invalid PrintableString',
  [TAG.UTF8String]: 'invalid UTF-8 string',
  [TAG.BMPString]: 'invalid BMPString',
  [TAG.IA5String]: 'invalid IA5String',
  [TAG.NumericString]: 'invalid NumericString',
};

/**
 * An attribute value of a certificate name (parser.go readASN1Any): strings, int64, BIT STRING, bytes, OID,
 * time, bool, null, else an asn1.RawValue. Answers the Go value as JSON, or an error text.
 */
export function certAttributeValue(el: Element): { value: Json; isString: boolean } | string {
  const c = el.contents;
  if (STRING_TAGS.has(el.tag)) {
    const s = asn1String(el.tag, c);
    return s === undefined ? STRING_ERRORS[el.tag] ?? 'invalid ASN.1 element' : { value: s, isString: true };
  }
  switch (el.tag) {
    case TAG.INTEGER: {
      const v = integerValue(c);
      if (v === undefined || v > 0x7fffffffffffffffn || v < -0x8000000000000000n) return 'invalid ASN.1 integer';
      return { value: Number(v), isString: false };
    }
    case TAG.BIT_STRING: {
      const bs = bitStringValue(c);
      return bs ? { value: { Bytes: bytes(bs.bytes), BitLength: bs.bitLength }, isString: false } : 'invalid ASN.1 BIT STRING';
    }
    case TAG.OCTET_STRING:
      return { value: bytes(c), isString: false };
    case TAG.OID: {
      const oid = oidValue(c);
      return oid ? { value: oid, isString: false } : 'invalid ASN.1 OBJECT IDENTIFIER';
    }
    case TAG.UTCTime:
    case TAG.GeneralizedTime: {
      const t = asn1Time(el);
      return t === undefined ? (el.tag === TAG.UTCTime ? 'x509: malformed UTCTime' : 'x509: malformed GeneralizedTime') : { value: t, isString: false };
    }
    case TAG.BOOLEAN:
      if (c.length !== 1 || (c[0] !== 0 && c[0] !== 0xff)) return 'invalid ASN.1 BOOLEAN';
      return { value: c[0] === 0xff, isString: false };
    case TAG.NULL:
      return { value: null, isString: false };
  }
  return { value: rawValue(el), isString: false };
}

/**
 * An attribute value of a CSR subject, decoded by encoding/asn1 into interface{}: the string types, int64,
 * BIT STRING, OID, times and bytes; any other type (or a constructed one) leaves the value nil.
 */
export function csrAttributeValue(el: Element): { value: Json; isString: boolean } | string {
  const c = el.contents;
  switch (el.tag) {
    case TAG.PrintableString:
      return c.every(isPrintable) ? { value: latin1Decode(c), isString: true } : 'asn1: syntax error: PrintableString contains invalid character';
    case TAG.IA5String:
      return c.every((b) => b < 0x80) ? { value: latin1Decode(c), isString: true } : 'asn1: syntax error: IA5String contains invalid character';
    case TAG.T61String:
      // encoding/asn1 keeps the bytes as they are; encoding/json then replaces invalid UTF-8.
      return { value: utf8Decode(c), isString: true };
    case TAG.UTF8String:
    case TAG.BMPString:
    case TAG.NumericString: {
      const s = asn1String(el.tag, c);
      return s === undefined ? `asn1: syntax error: invalid ${el.tag === TAG.UTF8String ? 'UTF-8' : el.tag === TAG.BMPString ? 'BMPString' : 'NumericString'}` : { value: s, isString: true };
    }
    case TAG.INTEGER:
    case TAG.BIT_STRING:
    case TAG.OID:
    case TAG.UTCTime:
    case TAG.GeneralizedTime:
    case TAG.OCTET_STRING: {
      const v = certAttributeValue(el);
      return typeof v === 'string' ? `asn1: structure error: ${v}` : v;
    }
  }
  return { value: null, isString: false };
}

/** asn1.RawValue. */
function rawValue(el: Element): Json {
  return { Class: el.tag >> 6, Tag: el.tag & 0x1f, IsCompound: (el.tag & 0x20) !== 0, Bytes: bytes(el.contents), FullBytes: bytes(el.full) };
}

export interface NameAttribute {
  type: number[];
  value: Json;
  isString: boolean;
}

const NAME_FIELDS: Record<number, string> = {
  3: 'CommonName',
  5: 'SerialNumber',
  6: 'Country',
  7: 'Locality',
  8: 'Province',
  9: 'StreetAddress',
  10: 'Organization',
  11: 'OrganizationalUnit',
  17: 'PostalCode',
};

/** pkix.Name after FillFromRDNSequence: every attribute in Names, the string ones of 2.5.4.x in their fields. */
export function pkixName(attributes: readonly NameAttribute[]): Json {
  const lists: Record<string, string[] | undefined> = {};
  let commonName = '';
  let serialNumber = '';
  let names: Json[] | undefined;
  for (const a of attributes) {
    (names ??= []).push({ Type: a.type, Value: a.value });
    if (!a.isString) continue;
    const t = a.type;
    if (t.length !== 4 || t[0] !== 2 || t[1] !== 5 || t[2] !== 4) continue;
    const field = NAME_FIELDS[t[3]!];
    if (field === 'CommonName') commonName = a.value as string;
    else if (field === 'SerialNumber') serialNumber = a.value as string;
    else if (field) (lists[field] ??= []).push(a.value as string);
  }
  const list = (f: string): Json => lists[f] ?? null;
  return {
    Country: list('Country'),
    Organization: list('Organization'),
    OrganizationalUnit: list('OrganizationalUnit'),
    Locality: list('Locality'),
    Province: list('Province'),
    StreetAddress: list('StreetAddress'),
    PostalCode: list('PostalCode'),
    SerialNumber: serialNumber,
    CommonName: commonName,
    Names: names ?? null,
    ExtraNames: null,
  };
}
