/**
 * Kyverno's CEL `x509.decode` (kyverno/sdk extensions/cel/libs/x509) on a certificate and a certificate request
 * generated for this repository with openssl (fixtures/x509): the certificate through impl.go's
 * CertificateOutput (its fields only, the serial number as Int64(), times in whole seconds), the request as the
 * JMESPath x509_decode gives it, every number a double, and the errors as upstream words them.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/cel/index.js';
import { certificateOutput } from '../../src/cel/lib/kyverno-x509.js';
import { resultToJson } from '../../src/engines/cel.js';
import { compileJmes } from '../../src/jmespath/index.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/x509/${name}`, import.meta.url), 'utf8');
// openssl req -x509 -newkey rsa:2048 -set_serial 0x0180000000000000f5 -subj /CN=transmute-cel-ca/O=transmute,
// basicConstraints CA pathlen 1, keyUsage keyCertSign cRLSign digitalSignature, SAN DNS + IP, EKU serverAuth.
const CERT = fixture('rsa-ca-large-serial.crt.pem');
// openssl req -new -newkey rsa:2048 -subj /CN=grace/O=system:masters/O=devs, SAN DNS + email.
const CSR = fixture('rsa-grace.csr.pem');
// openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -subj /CN=transmute-ec
const EC = fixture('ec.crt.pem');

function evalMpol(expr: string, s: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  const p = compile(expr, { variables: ['s'], extraLibraries: ['kyverno'] });
  if (!p.ok) throw new Error(p.diagnostics[0]!.message);
  const r = p.value.eval({ s }, {});
  return r.ok ? { ok: true, value: r.value } : { ok: false, error: r.error };
}

function value(expr: string, s: unknown): unknown {
  const r = evalMpol(expr, s);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

const json = (expr: string, s: unknown) => resultToJson(value(expr, s)) as Record<string, unknown>;

describe('x509.decode (kyverno.x509)', () => {
  it('is a Kyverno library: absent from the Kubernetes environment', () => {
    const p = compile('x509.decode(s)', { variables: ['s'] });
    expect(p.ok).toBe(false);
  });

  describe('a certificate', () => {
    const out = json('x509.decode(s)', CERT);
    const node = new X509Certificate(CERT);

    it("has CertificateOutput's fields, in its order, and no others", () => {
      expect(Object.keys(out)).toEqual([
        'Raw', 'RawTBSCertificate', 'RawSubjectPublicKeyInfo', 'RawSubject', 'RawIssuer', 'Signature', 'PublicKeyAlgorithm', 'PublicKey',
        'SerialNumber', 'Issuer', 'NotBefore', 'NotAfter', 'KeyUsage', 'Extensions', 'ExtraExtensions', 'ExtKeyUsage', 'BasicConstraintsValid',
        'IsCA', 'MaxPathLen', 'MaxPathLenZero', 'AuthorityKeyId', 'OCSPServer', 'IssuingCertificateURL', 'DNSNames', 'EmailAddresses',
        'IPAddresses', 'PermittedDNSDomainsCritical', 'PermittedDNSDomains', 'ExcludedDNSDomains', 'PermittedIPRanges', 'ExcludedIPRanges',
        'PermittedEmailAddresses', 'ExcludedEmailAddresses', 'PermittedURIDomains', 'ExcludedURIDomains', 'CRLDistributionPoints', 'PolicyIdentifiers',
      ]);
      expect(value('has(x509.decode(s).Subject) || has(x509.decode(s).Version) || has(x509.decode(s).SignatureAlgorithm)', CERT)).toBe(false);
    });

    it('matches what node:crypto reads', () => {
      expect(out.Raw).toBe(node.raw.toString('base64'));
      expect((out.Issuer as Record<string, unknown>).CommonName).toBe('transmute-cel-ca');
      expect((out.Issuer as Record<string, unknown>).Organization).toEqual(['transmute']);
      expect(out.NotBefore).toBe(new Date(node.validFrom).toISOString().replace('.000Z', 'Z'));
      expect(out.NotAfter).toBe(new Date(node.validTo).toISOString().replace('.000Z', 'Z'));
      const jwk = node.publicKey.export({ format: 'jwk' });
      expect(out.PublicKey).toEqual({ N: BigInt(`0x${Buffer.from(jwk.n!, 'base64url').toString('hex')}`).toString(), E: 65537 });
      expect(out.DNSNames).toEqual(['ca.transmute.test']);
      expect(out.IPAddresses).toEqual(['10.0.0.1']);
    });

    it('reads the extensions as crypto/x509 does', () => {
      // keyCertSign (1<<5) | cRLSign (1<<6) | digitalSignature (1<<0); ExtKeyUsageServerAuth = 1.
      expect(out.KeyUsage).toBe(97);
      expect(out.ExtKeyUsage).toEqual([1]);
      expect([out.IsCA, out.BasicConstraintsValid, out.MaxPathLen, out.MaxPathLenZero]).toEqual([true, true, 1, false]);
      expect((out.Extensions as unknown[]).length).toBe(6);
    });

    it('keeps the low 64 bits of the serial number (big.Int.Int64), as a float64', () => {
      // 0x0180000000000000f5: the low 64 bits 0x80000000000000f5 are a negative int64, -2^63 + 245.
      expect(out.SerialNumber).toBe(Number(BigInt.asIntN(64, 0x0180000000000000f5n)));
      expect(out.SerialNumber).toBe(-(2 ** 63));
    });

    it('gives doubles for every number (a map read back from JSON)', () => {
      expect(value('[x509.decode(s)].all(c, type(c.KeyUsage) == double && type(c.PublicKey.E) == double && type(c.SerialNumber) == double)', CERT)).toBe(true);
      expect(value('x509.decode(s).KeyUsage == 97', CERT)).toBe(true);
    });
  });

  describe('a certificate request', () => {
    it('is the JSON the JMESPath x509_decode gives', () => {
      const jmes = compileJmes('x509_decode(@)');
      if (!jmes.ok) throw new Error('x509_decode does not compile');
      const expected = jmes.value.search(CSR);
      if (!expected.ok) throw new Error(expected.error.message);
      expect(json('x509.decode(s)', CSR)).toEqual(expected.value);
    });

    it('reads the subject and the names', () => {
      expect(value('x509.decode(s).Subject.CommonName', CSR)).toBe('grace');
      expect(resultToJson(value('x509.decode(s).Subject.Organization', CSR))).toEqual(['system:masters', 'devs']);
      expect(resultToJson(value('x509.decode(s).EmailAddresses', CSR))).toEqual(['grace@transmute.test']);
      expect(value('type(x509.decode(s).Version) == double', CSR)).toBe(true);
    });
  });

  describe('errors, worded as upstream', () => {
    const error = (s: unknown) => {
      const r = evalMpol('x509.decode(s)', s);
      return r.ok ? undefined : r.error;
    };
    it('not PEM', () => expect(error('not a valid PEM')).toContain('failed to decode PEM block'));
    it('another PEM block', () => expect(error('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')).toContain('PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST'));
    it('an EC key', () => expect(error(EC)).toContain('certificate should use rsa algorithm'));
    it('a malformed certificate', () => expect(error('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')).toMatch(/x509: /));
    it('not a string', () => expect(error(42)).toContain('no such overload'));
  });

  it('writes the validity times with time.Format(RFC3339): fractions dropped, offsets kept', () => {
    const parsed = { json: { NotBefore: '2024-01-02T03:04:05.25Z', NotAfter: '2049-12-31T23:59:59.5+01:30' }, serial: 7n };
    const out = certificateOutput(parsed) as Record<string, unknown>;
    expect([out.NotBefore, out.NotAfter, out.SerialNumber, out.Raw]).toEqual(['2024-01-02T03:04:05Z', '2049-12-31T23:59:59+01:30', 7, null]);
  });
});
