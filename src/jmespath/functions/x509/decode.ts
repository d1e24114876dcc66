/**
 * Kyverno's x509_decode (pkg/engine/jmespath/functions.go jpX509Decode): the first PEM block of the input,
 * a CERTIFICATE or a CERTIFICATE REQUEST with an RSA key, as Go's x509.Certificate / x509.CertificateRequest
 * marshalled to JSON and read back into a map (so every number is a float64), PublicKey replaced by {N, E}.
 */
import { decodeCertificate } from './certificate.js';
import { X509Error, type Json } from './go-json.js';
import { decodePem } from './pem.js';
import { decodeCertificateRequest } from './request.js';

/** The decoded object, or Go's error text. */
export function decodeX509(input: string): { value: Json } | { error: string } {
  const block = decodePem(input);
  if (!block) return { error: 'failed to decode PEM block' };
  try {
    switch (block.type) {
      case 'CERTIFICATE':
        return { value: decodeCertificate(block.bytes) };
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
