/**
 * x509_decode on certificates and requests generated for this repository with openssl (fixtures/x509): the
 * fields node:crypto can also read are cross-checked against X509Certificate; the rest are the values Go's
 * crypto/x509 gives for these extensions (parser.go), rendered as encoding/json does.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectError, value } from './helpers.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/x509/${name}`, import.meta.url), 'utf8');
const SERVER = fixture('rsa-server.crt.pem');
const CA = fixture('rsa-ca.crt.pem');
const CSR = fixture('rsa-client.csr.pem');
const EC = fixture('ec.crt.pem');

type Obj = Record<string, unknown>;
const decode = (pem: string) => value('x509_decode(@)', pem) as Obj;
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const derOf = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');

describe('x509_decode: certificates', () => {
  it('agrees with node:crypto on the raw bytes, serial, validity, key, names', () => {
    const got = decode(SERVER);
    const cert = new X509Certificate(SERVER);
    expect(got.Raw).toBe(cert.raw.toString('base64'));
    // big.Int → JSON number → float64 in Kyverno's round trip.
    expect(got.SerialNumber).toBe(Number(BigInt(`0x${cert.serialNumber}`)));
    expect(got.NotBefore).toBe(new Date(cert.validFrom).toISOString().replace('.000Z', 'Z'));
    expect(got.NotAfter).toBe(new Date(cert.validTo).toISOString().replace('.000Z', 'Z'));
    const jwk = cert.publicKey.export({ format: 'jwk' });
    expect(got.PublicKey).toEqual({
      N: BigInt(`0x${Buffer.from(jwk.n!, 'base64url').toString('hex')}`).toString(),
      E: Number(BigInt(`0x${Buffer.from(jwk.e!, 'base64url').toString('hex')}`)),
    });
    expect((got.Subject as Obj).CommonName).toBe('transmute.test');
    expect(got.DNSNames).toEqual(['transmute.test', '*.transmute.test']);
    expect(cert.subjectAltName).toContain('DNS:transmute.test');
  });

  it('renders the struct as Go does: enums as numbers, nil slices as null, names with OIDs', () => {
    const got = decode(SERVER);
    expect(got).toMatchObject({
      Version: 3,
      SignatureAlgorithm: 4, // SHA256WithRSA
      PublicKeyAlgorithm: 1, // RSA
      KeyUsage: 5, // DigitalSignature | KeyEncipherment
      ExtKeyUsage: [1, 2], // ServerAuth, ClientAuth
      UnknownExtKeyUsage: null,
      BasicConstraintsValid: true,
      IsCA: true,
      MaxPathLen: -1,
      MaxPathLenZero: false,
      EmailAddresses: ['ops@transmute.test'],
      IPAddresses: ['10.0.0.1', '2001:db8::1'],
      ExtraExtensions: null,
      UnhandledCriticalExtensions: null,
      Policies: null,
      InhibitAnyPolicy: 0,
    });
    expect(got.URIs).toEqual([
      {
        Scheme: 'spiffe',
        Opaque: '',
        User: null,
        Host: 'transmute.test',
        Path: '/ns/default/sa/web',
        RawPath: '',
        OmitHost: false,
        ForceQuery: false,
        RawQuery: '',
        Fragment: '',
        RawFragment: '',
      },
    ]);
    expect(got.Subject).toMatchObject({
      Country: ['DE'],
      Province: ['Berlin'],
      Locality: ['Berlin'],
      Organization: ['Transmute Test'],
      OrganizationalUnit: ['Unit'],
      StreetAddress: null,
      SerialNumber: '',
      ExtraNames: null,
    });
    expect((got.Subject as Obj).Names).toContainEqual({ Type: [2, 5, 4, 3], Value: 'transmute.test' });
    expect((got.Extensions as Obj[]).map((e) => (e.Id as number[]).join('.'))).toContain('2.5.29.17');
    expect((got.Extensions as Obj[]).find((e) => (e.Id as number[]).join('.') === '2.5.29.15')?.Critical).toBe(true);
  });

  it('reads constraints, policies, AIA, CRL points and GeneralizedTime validity', () => {
    const got = decode(CA);
    expect(got).toMatchObject({
      SerialNumber: 7,
      NotAfter: '2070-09-11T21:48:33Z', // past 2049: GeneralizedTime
      KeyUsage: 96, // CertSign | CRLSign
      MaxPathLen: 0,
      MaxPathLenZero: true,
      SubjectKeyId: expect.any(String),
      AuthorityKeyId: null,
      OCSPServer: ['http://ocsp.transmute.test'],
      IssuingCertificateURL: ['http://ca.transmute.test/ca.crt'],
      CRLDistributionPoints: ['http://crl.transmute.test/ca.crl'],
      PermittedDNSDomainsCritical: true,
      PermittedDNSDomains: ['.transmute.test'],
      PermittedIPRanges: [{ IP: '10.0.0.0', Mask: '/wAAAA==' }],
      ExcludedEmailAddresses: ['.evil.test'],
      PolicyIdentifiers: [
        [1, 2, 3, 4, 5],
        [2, 23, 140, 1, 2, 1],
      ],
      Policies: ['1.2.3.4.5', '2.23.140.1.2.1'],
    });
    expect(Buffer.from(got.SubjectKeyId as string, 'base64')).toHaveLength(20);
  });

  it('decodes a base64-wrapped PEM, text around the block and CRLF line ends', () => {
    expect(value('x509_decode(base64_decode(@)).Subject.CommonName', b64(SERVER))).toBe('transmute.test');
    expect(value('x509_decode(@).Version', `leading text\r\n${SERVER.replace(/\n/g, '\r\n')}trailing`)).toBe(3);
  });
});

describe('x509_decode: certificate requests', () => {
  it('reads subject, SANs, extensions and the deprecated Attributes', () => {
    const got = decode(CSR);
    expect(got).toMatchObject({
      Version: 0,
      SignatureAlgorithm: 4,
      PublicKeyAlgorithm: 1,
      DNSNames: ['angela.transmute.test'],
      IPAddresses: ['192.168.1.10'],
      EmailAddresses: null,
      URIs: null,
      ExtraExtensions: null,
    });
    expect(got.Subject).toMatchObject({ CommonName: 'angela', Organization: ['system:masters', 'dev'], Country: null });
    expect(got.Extensions).toEqual([{ Id: [2, 5, 29, 17], Critical: false, Value: expect.any(String) }]);
    const san = (got.Extensions as Obj[])[0]!.Value;
    expect(got.Attributes).toEqual([{ Type: [1, 2, 840, 113549, 1, 9, 14], Value: [[{ Type: [2, 5, 29, 17], Value: san }]] }]);
    expect((got.PublicKey as Obj).E).toBe(65537);
    const der = derOf(CSR);
    expect(got.Raw).toBe(der.toString('base64'));
  });

  it('is what the CSR policies of the corpus read: base64_decode then Subject.CommonName', () => {
    expect(value('x509_decode(base64_decode(@)).Subject.CommonName | to_string(@)', b64(CSR))).toBe('angela');
  });
});

describe('x509_decode: errors carry Kyverno and Go texts', () => {
  const error = (pem: unknown) => expectError('x509_decode(@)', pem);
  it('non-PEM input, other PEM types and non-RSA keys', () => {
    expect(error('xyz')).toEqual({ kind: 'Runtime', message: 'failed to decode PEM block' });
    expect(error('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n').message).toBe('PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST');
    expect(error(EC).message).toBe('certificate should use rsa algorithm');
  });
  it('a block without its END line or with bad base64 is no block', () => {
    expect(error(SERVER.replace('-----END CERTIFICATE-----', '')).message).toBe('failed to decode PEM block');
    expect(error('-----BEGIN CERTIFICATE-----\nA*AA\n-----END CERTIFICATE-----\n').message).toBe('failed to decode PEM block');
  });
  it('malformed DER', () => {
    const pem = (der: Buffer, type = 'CERTIFICATE') => `-----BEGIN ${type}-----\n${der.toString('base64')}\n-----END ${type}-----\n`;
    expect(error(pem(Buffer.from([0, 0, 0]))).message).toBe('x509: malformed certificate');
    expect(error(pem(Buffer.concat([derOf(SERVER), Buffer.from([0])]))).message).toBe('x509: trailing data');
    expect(error(pem(Buffer.concat([derOf(CSR), Buffer.from([0])]), 'CERTIFICATE REQUEST')).message).toBe('asn1: syntax error: trailing data');
  });
  it('a non-string argument is a Kyverno type error', () => {
    expect(expectError('x509_decode(`1`)').message).toContain('Invalid type');
  });
});
