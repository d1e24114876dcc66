/**
 * Kyverno's x509 decoding, shared by the JMESPath x509_decode (pkg/engine/jmespath/functions.go jpX509Decode)
 * and the CEL x509.decode (kyverno/sdk extensions/cel/libs/x509 impl.go decode), which run the same steps: the
 * first PEM block of the input, a CERTIFICATE or a CERTIFICATE REQUEST with an RSA key, as Go's
 * x509.Certificate / x509.CertificateRequest marshalled to JSON and read back into a map (so every number is
 * a float64), PublicKey replaced by {N, E}. They differ only in how a certificate is rendered: the CEL one
 * marshals a smaller struct of its own (CertificateOutput), so the caller passes the rendering.
 */
import { certificateJson, parseCertificate, type ParsedCertificate } from './certificate.js';
import { X509Error, type Json } from './go-json.js';
import { decodePem } from './pem.js';
import { decodeCertificateRequest } from './request.js';

export type { ParsedCertificate };

/** The decoded object, or Go's error text. */
export function decodeX509(input: string, renderCertificate: (c: ParsedCertificate) => Json = certificateJson): { value: Json } | { error: string } {
  const block = decodePem(input);
  if (!block) return { error: 'failed to decode PEM block' };
  try {
    switch (block.type) {
      case 'CERTIFICATE':
        return { value: renderCertificate(parseCertificate(block.bytes)) };
      case 'CERTIFICATE REQUEST':
        return { value: decodeCertificateRequest(block.bytes) };
      default:
        return { error: 'PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST' };
    }
  } catch (e) {
    if (e instanceof X509Error) return { error: e.message };
    throw e;
  }
}
