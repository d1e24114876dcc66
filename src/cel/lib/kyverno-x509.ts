/**
 * Kyverno's x509 library (kyverno/sdk extensions/cel/libs/x509, `kyverno.x509`): `x509.decode(string) dyn`
 * decodes the first PEM block of its argument as the JMESPath x509_decode does (src/x509/decode.ts, the same
 * steps and the same errors), but renders a certificate through its own CertificateOutput struct (impl.go
 * encodeCertificate): fewer fields, in that struct's order, the serial number as big.Int.Int64() and the
 * validity times as time.Format(RFC3339). A certificate request is the whole x509.CertificateRequest, as in
 * JMESPath. The result is a map read back from JSON, so every number is a float64: a CEL double here.
 */
import { decodeX509, type ParsedCertificate } from '../../x509/decode.js';
import type { Json } from '../../x509/go-json.js';
import { global, type FunctionDef } from '../registry.js';
import { err, mkDouble, noOverload } from '../values.js';

/** CertificateOutput's fields, in its declaration order (impl.go). */
const CERTIFICATE_OUTPUT_FIELDS = [
  'Raw',
  'RawTBSCertificate',
  'RawSubjectPublicKeyInfo',
  'RawSubject',
  'RawIssuer',
  'Signature',
  'PublicKeyAlgorithm',
  'PublicKey',
  'SerialNumber',
  'Issuer',
  'NotBefore',
  'NotAfter',
  'KeyUsage',
  'Extensions',
  'ExtraExtensions',
  'ExtKeyUsage',
  'BasicConstraintsValid',
  'IsCA',
  'MaxPathLen',
  'MaxPathLenZero',
  'AuthorityKeyId',
  'OCSPServer',
  'IssuingCertificateURL',
  'DNSNames',
  'EmailAddresses',
  'IPAddresses',
  'PermittedDNSDomainsCritical',
  'PermittedDNSDomains',
  'ExcludedDNSDomains',
  'PermittedIPRanges',
  'ExcludedIPRanges',
  'PermittedEmailAddresses',
  'ExcludedEmailAddresses',
  'PermittedURIDomains',
  'ExcludedURIDomains',
  'CRLDistributionPoints',
  'PolicyIdentifiers',
] as const;

/** time.Format(time.RFC3339) of a time MarshalJSON wrote as RFC3339Nano: the same text without the fraction. */
function rfc3339Seconds(t: Json): Json {
  return typeof t === 'string' ? t.replace(/\.\d+(?=Z|[+-]\d\d:\d\d$)/, '') : t;
}

/** impl.go encodeCertificate: the certificate through CertificateOutput. */
export function certificateOutput(c: ParsedCertificate): Json {
  const out: Record<string, Json> = {};
  for (const field of CERTIFICATE_OUTPUT_FIELDS) out[field] = c.json[field] ?? null;
  // big.Int.Int64 keeps the low 64 bits (two's complement), then the int64 becomes a float64 on the way back.
  out.SerialNumber = Number(BigInt.asIntN(64, c.serial));
  out.NotBefore = rfc3339Seconds(out.NotBefore!);
  out.NotAfter = rfc3339Seconds(out.NotAfter!);
  return out;
}

/** types.NativeToValue of the map json.Unmarshal built: numbers are float64, so CEL doubles. */
function celValue(v: Json): unknown {
  if (typeof v === 'number') return mkDouble(v);
  if (Array.isArray(v)) return v.map(celValue);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = celValue(x);
    return out;
  }
  return v;
}

function decode(input: unknown): unknown {
  if (typeof input !== 'string') return noOverload('x509.decode', input);
  const r = decodeX509(input, certificateOutput);
  // types.WrapErr(err): Go's error text as it is.
  return 'error' in r ? err(r.error) : celValue(r.value);
}

export const kyvernoX509Functions: FunctionDef[] = [global('kyverno', 'x509.decode', 1, decode)];
