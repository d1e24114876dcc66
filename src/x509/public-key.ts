/**
 * The subject public key: crypto/x509 parsePublicKey for RSA (the only algorithm jpX509Decode accepts), then
 * Kyverno's own re-reading of the SubjectPublicKeyInfo with x509.ParsePKCS1PublicKey, which replaces
 * PublicKey by `PublicKey{N: <decimal string>, E: <int>}` (functions.go).
 */
import type { AlgorithmIdentifier } from './algorithms.js';
import { DerReader, rightAlign, TAG, type BitString } from './der.js';
import { fail, type Json } from './go-json.js';

const INT64_MAX = 0x7fffffffffffffffn;

/** parser.go parsePublicKey, RSA case; answers the key or throws Go's error. */
export function parseRsaKey(algorithm: AlgorithmIdentifier, key: BitString): { n: bigint; e: bigint } {
  const params = algorithm.params;
  if (!params || params.full.length !== 2 || params.full[0] !== TAG.NULL || params.full[1] !== 0) fail('x509: RSA key missing NULL parameters');
  const seq = new DerReader(rightAlign(key)).enter(TAG.SEQUENCE);
  if (!seq) fail('x509: invalid RSA public key');
  const n = seq.readInteger();
  if (n === undefined) fail('x509: invalid RSA modulus');
  const e = seq.readInteger();
  if (e === undefined || e > INT64_MAX || e < -INT64_MAX - 1n) fail('x509: invalid RSA public exponent');
  if (n <= 0n) fail('x509: RSA modulus is not a positive number');
  if (e <= 0n) fail('x509: RSA public exponent is not a positive number');
  return { n, e };
}

/**
 * Kyverno's parseSubjectPublicKeyInfo + x509.ParsePKCS1PublicKey: trailing bytes after the key or an exponent
 * above 2^31-1 make it fail, reported as "failed to parse subject public key info".
 */
export function kyvernoPublicKey(key: BitString, parsed: { n: bigint; e: bigint }): Json {
  const outer = new DerReader(key.bytes);
  const seq = outer.read(TAG.SEQUENCE);
  if (!seq || !outer.empty() || parsed.e > 0x7fffffffn) fail('failed to parse subject public key info');
  return { N: parsed.n.toString(), E: Number(parsed.e) };
}
