/**
 * x509_decode → Kyverno's CEL x509.decode (kyverno/sdk extensions/cel/libs/x509): proven against Kyverno's
 * JMESPath on certificate requests (the same JSON), guarded on certificates (Kyverno's CEL renders fewer
 * fields), refused for MutatingAdmissionPolicy (no X.509 decoder in the Kubernetes environment). The PEM
 * fixtures were generated for this repository with openssl (test/cel/fixtures/x509).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jmesToCel } from '../../../src/lowering/jmes-cel/index.js';
import { differential, SCOPE, TARGETS, type Doc } from './harness.js';

const fixture = (name: string) => readFileSync(new URL(`../../cel/fixtures/x509/${name}`, import.meta.url), 'utf8');
const CSR = fixture('rsa-grace.csr.pem');
const CERT = fixture('rsa-ca-large-serial.crt.pem');
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

const csr = (request: unknown): unknown => ({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'grace' }, spec: { request } });

const DOCS: Doc[] = [
  { name: 'a CSR, base64', object: csr(b64(CSR)) },
  { name: 'a CSR, base64 on several lines', object: csr(b64(CSR).replace(/(.{76})/g, '$1\n')) },
  { name: 'a certificate, base64', object: csr(b64(CERT)) },
  { name: 'not PEM', object: csr(b64('not a valid PEM')) },
  { name: 'not base64', object: csr('%%%') },
  { name: 'no request', object: csr(null) },
  { name: 'a number', object: csr(7) },
];

const o = 'request.object';
const EXPRESSIONS = [
  `x509_decode(base64_decode(${o}.spec.request)).Subject.CommonName`,
  `x509_decode(base64_decode(${o}.spec.request)).Subject.Organization`,
  `x509_decode(base64_decode(${o}.spec.request)).Subject`,
  `x509_decode(base64_decode(${o}.spec.request)).PublicKey.E`,
  `x509_decode(base64_decode(${o}.spec.request)).Version`,
  `x509_decode(base64_decode(${o}.spec.request)).DNSNames[0]`,
  `x509_decode(base64_decode(${o}.spec.request)).Missing`,
  `x509_decode(base64_decode(${o}.spec.request)).Subject.CommonName == 'grace'`,
];

describe('JMESPath → CEL: x509_decode', () => {
  for (const { name, target } of TARGETS) {
    describe(name, () => {
      for (const expr of EXPRESSIONS) {
        if (target.env === 'kyverno-mpol') {
          it(expr, () => differential(expr, SCOPE, target, DOCS));
        } else {
          it(`refuses ${expr}`, () => {
            const c = jmesToCel(expr, SCOPE, target);
            expect(c.ok).toBe(false);
            if (!c.ok) expect(c.class, c.why).toBe('cannot');
          });
        }
      }
    });
  }

  it('maps to x509.decode() for kyverno-mpol, with a note on certificates', () => {
    const target = TARGETS.find((t) => t.name === 'kyverno-mpol')!.target;
    const c = jmesToCel(`x509_decode(${o}.spec.request).Subject.CommonName`, SCOPE, target);
    if (!c.ok) throw new Error(c.why);
    expect(c.cel).toContain('x509.decode(');
    expect(c.notes.join('\n')).toContain('x509_decode() of a certificate');
  });

  it('says why MutatingAdmissionPolicy cannot', () => {
    const c = jmesToCel(`x509_decode(${o}.spec.request)`, SCOPE, TARGETS[0]!.target);
    expect(c.ok ? c.cel : c.why).toContain('no X.509 decoder');
  });
});
