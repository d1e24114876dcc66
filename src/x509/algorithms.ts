/**
 * Go's x509.SignatureAlgorithm and x509.PublicKeyAlgorithm enum numbers (they are what encoding/json prints),
 * from the algorithm OIDs (x509.go signatureAlgorithmDetails, getSignatureAlgorithmFromAI,
 * getPublicKeyAlgorithmFromOID).
 */
import { DerReader, contextTag, oidString, TAG, type Element } from './der.js';

export const PUBLIC_KEY_RSA = 1;

const SIGNATURE_BY_OID: Record<string, number> = {
  '1.2.840.113549.1.1.2': 1, // MD2WithRSA
  '1.2.840.113549.1.1.4': 2, // MD5WithRSA
  '1.2.840.113549.1.1.5': 3, // SHA1WithRSA
  '1.3.14.3.2.29': 3, // SHA1WithRSA (ISO OID)
  '1.2.840.113549.1.1.11': 4, // SHA256WithRSA
  '1.2.840.113549.1.1.12': 5, // SHA384WithRSA
  '1.2.840.113549.1.1.13': 6, // SHA512WithRSA
  '1.2.840.10040.4.3': 7, // DSAWithSHA1
  '2.16.840.1.101.3.4.3.2': 8, // DSAWithSHA256
  '1.2.840.10045.4.1': 9, // ECDSAWithSHA1
  '1.2.840.10045.4.3.2': 10, // ECDSAWithSHA256
  '1.2.840.10045.4.3.3': 11, // ECDSAWithSHA384
  '1.2.840.10045.4.3.4': 12, // ECDSAWithSHA512
  '1.3.101.112': 16, // PureEd25519
};

const PUBLIC_KEY_BY_OID: Record<string, number> = {
  '1.2.840.113549.1.1.1': PUBLIC_KEY_RSA,
  '1.2.840.10040.4.1': 2, // DSA
  '1.2.840.10045.2.1': 3, // ECDSA
  '1.3.101.112': 4, // Ed25519
};

const RSA_PSS = '1.2.840.113549.1.1.10';
const MGF1 = '1.2.840.113549.1.1.8';
/** Hash OID → (SHA256WithRSAPSS | SHA384WithRSAPSS | SHA512WithRSAPSS, salt length = hash size). */
const PSS_BY_HASH: Record<string, [number, number]> = {
  '2.16.840.1.101.3.4.2.1': [13, 32],
  '2.16.840.1.101.3.4.2.2': [14, 48],
  '2.16.840.1.101.3.4.2.3': [15, 64],
};

export interface AlgorithmIdentifier {
  oid: number[];
  /** The parameters element, when present. */
  params?: Element;
}

/** x509 parseAI: an OID and optional parameters of any type. */
export function readAlgorithmIdentifier(seq: DerReader): AlgorithmIdentifier | undefined {
  const oid = seq.readOid();
  if (!oid) return undefined;
  if (seq.empty()) return { oid };
  const params = seq.readAny();
  return params ? { oid, params } : undefined;
}

export function publicKeyAlgorithm(oid: readonly number[]): number {
  return PUBLIC_KEY_BY_OID[oidString(oid)] ?? 0;
}

/**
 * getSignatureAlgorithmFromAI: RSA-PSS is recognised only in the form Go writes (MGF1 with the same hash,
 * salt length = hash size, trailer field 1); anything else is UnknownSignatureAlgorithm (0).
 */
export function signatureAlgorithm(ai: AlgorithmIdentifier): number {
  const oid = oidString(ai.oid);
  // RFC 8410: Ed25519 parameters must be absent; the other non-PSS algorithms are a plain table lookup.
  if (oid === '1.3.101.112' && ai.params) return 0;
  if (oid !== RSA_PSS) return SIGNATURE_BY_OID[oid] ?? 0;
  if (!ai.params || ai.params.tag !== TAG.SEQUENCE) return 0;
  const p = new DerReader(ai.params.contents);
  const hash = p.enter(contextTag(0, true))?.enter(TAG.SEQUENCE)?.readOid();
  const mgf = p.enter(contextTag(1, true))?.enter(TAG.SEQUENCE);
  const mgfOid = mgf?.readOid();
  const mgfHash = mgf?.enter(TAG.SEQUENCE)?.readOid();
  let salt = 20n;
  const saltEl = p.optional(contextTag(2, true));
  if (saltEl) {
    const v = new DerReader(saltEl.contents).readInteger();
    if (v === undefined) return 0;
    salt = v;
  }
  const trailerEl = p.optional(contextTag(3, true));
  if (trailerEl && new DerReader(trailerEl.contents).readInteger() !== 1n) return 0;
  if (!hash || !mgfOid || !mgfHash || oidString(mgfOid) !== MGF1 || oidString(mgfHash) !== oidString(hash)) return 0;
  const known = PSS_BY_HASH[oidString(hash)];
  if (!known || BigInt(known[1]) !== salt) return 0;
  return known[0];
}
