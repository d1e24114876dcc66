/**
 * x509.ParseCertificate (parser.go parseCertificate) rendered as Kyverno's x509_decode returns it: the
 * x509.Certificate struct through encoding/json, with PublicKey replaced by {N, E}. Kyverno's CEL
 * x509.decode renders the same parse through a smaller struct (src/cel/lib/kyverno-x509.ts), hence the
 * parse (`parseCertificate`) apart from the rendering (`certificateJson`).
 */
import { PUBLIC_KEY_RSA, publicKeyAlgorithm, readAlgorithmIdentifier, signatureAlgorithm } from './algorithms.js';
import { contextTag, DerReader, rightAlign, TAG } from './der.js';
import { extensionFieldsJson, extensionJson, parseExtension, processExtensions, type Extension } from './extensions.js';
import { asn1Time, bytes, fail, slice, type Json } from './go-json.js';
import { certificateName } from './names.js';
import { kyvernoPublicKey, parseRsaKey } from './public-key.js';
import { sameBytes } from '../util/bytes.js';

const RSA_ONLY = 'certificate should use rsa algorithm';

/** The certificate as x509.Certificate marshals it (`json`), and what a rendering needs beyond that JSON. */
export interface ParsedCertificate {
  json: Record<string, Json>;
  /** The serial number exactly (the JSON holds it as a float64). */
  serial: bigint;
}

/** The JSON x509_decode gives for a certificate. */
export function certificateJson(c: ParsedCertificate): Json {
  return c.json;
}

export function parseCertificate(der: Uint8Array): ParsedCertificate {
  const top = new DerReader(der);
  const certEl = top.read(TAG.SEQUENCE);
  if (!certEl) fail('x509: malformed certificate');
  const input = new DerReader(certEl.contents);
  const tbsEl = input.read(TAG.SEQUENCE);
  if (!tbsEl) fail('x509: malformed tbs certificate');
  const tbs = new DerReader(tbsEl.contents);

  let version = 0;
  const versionEl = tbs.optional(contextTag(0, true));
  if (versionEl === undefined) fail('x509: malformed version');
  if (versionEl) {
    const v = new DerReader(versionEl.contents).readInteger();
    if (v === undefined) fail('x509: malformed version');
    if (v < 0n || v > 3n) fail('x509: malformed version');
    version = Number(v);
  }
  version++;
  if (version > 3) fail('x509: invalid version');

  const serial = tbs.readInteger();
  if (serial === undefined) fail('x509: malformed serial number');
  if (serial < 0n) fail('x509: negative serial number');

  const sigAIEl = tbs.read(TAG.SEQUENCE);
  if (!sigAIEl) fail('x509: malformed signature algorithm identifier');
  const outerSigAI = input.read(TAG.SEQUENCE);
  if (!outerSigAI) fail('x509: malformed algorithm identifier');
  if (!sameBytes(outerSigAI.contents, sigAIEl.contents)) fail("x509: inner and outer signature algorithm identifiers don't match");
  const sigAI = readAlgorithmIdentifier(new DerReader(sigAIEl.contents));
  if (!sigAI) fail('x509: malformed OID');

  const issuerEl = tbs.read(TAG.SEQUENCE);
  if (!issuerEl) fail('x509: malformed issuer');
  const issuer = certificateName(issuerEl);

  const validity = tbs.enter(TAG.SEQUENCE);
  if (!validity) fail('x509: malformed validity');
  const notBefore = readTime(validity);
  const notAfter = readTime(validity);

  const subjectEl = tbs.read(TAG.SEQUENCE);
  if (!subjectEl) fail('x509: malformed issuer');
  const subject = certificateName(subjectEl);

  const spkiEl = tbs.read(TAG.SEQUENCE);
  if (!spkiEl) fail('x509: malformed spki');
  const spki = new DerReader(spkiEl.contents);
  const pkAISeq = spki.enter(TAG.SEQUENCE);
  if (!pkAISeq) fail('x509: malformed public key algorithm identifier');
  const pkAI = readAlgorithmIdentifier(pkAISeq);
  if (!pkAI) fail('x509: malformed OID');
  const pkAlgorithm = publicKeyAlgorithm(pkAI.oid);
  const spk = spki.readBitString();
  if (!spk) fail('x509: malformed subjectPublicKey');
  // Go parses every known key type here; only RSA goes further in Kyverno, so other keys are not validated.
  const rsa = pkAlgorithm === PUBLIC_KEY_RSA ? parseRsaKey(pkAI, spk) : undefined;

  let extensions: Extension[] | undefined;
  if (version > 1) {
    if (tbs.optional(contextTag(1)) === undefined) fail('x509: malformed issuerUniqueID');
    if (tbs.optional(contextTag(2)) === undefined) fail('x509: malformed subjectUniqueID');
    if (version === 3) {
      const present = tbs.optional(contextTag(3, true));
      if (present === undefined) fail('x509: malformed extensions');
      if (present) {
        const list = new DerReader(present.contents).enter(TAG.SEQUENCE);
        if (!list) fail('x509: malformed extensions');
        const seen = new Set<string>();
        while (!list.empty()) {
          const seq = list.enter(TAG.SEQUENCE);
          if (!seq) fail('x509: malformed extension');
          const ext = parseExtension(seq);
          const key = ext.id.join('.');
          if (seen.has(key)) fail(`x509: certificate contains duplicate extension with OID ${JSON.stringify(key)}`);
          seen.add(key);
          (extensions ??= []).push(ext);
        }
      }
    }
  }
  const fields = processExtensions(extensions ?? []);

  const signature = input.readBitString();
  if (!signature) fail('x509: malformed signature');
  if (!top.empty()) fail('x509: trailing data');

  if (!rsa) fail(RSA_ONLY);
  const json: Record<string, Json> = {
    Raw: bytes(certEl.full),
    RawTBSCertificate: bytes(tbsEl.full),
    RawSubjectPublicKeyInfo: bytes(spkiEl.full),
    RawSubject: bytes(subjectEl.full),
    RawIssuer: bytes(issuerEl.full),
    Signature: bytes(rightAlign(signature)),
    SignatureAlgorithm: signatureAlgorithm(sigAI),
    PublicKeyAlgorithm: pkAlgorithm,
    PublicKey: kyvernoPublicKey(spk, rsa),
    Version: version,
    // big.Int marshals as a JSON number, which Kyverno's round trip reads back as a float64.
    SerialNumber: Number(serial),
    Issuer: issuer,
    Subject: subject,
    NotBefore: notBefore,
    NotAfter: notAfter,
    Extensions: slice(extensions, extensionJson),
    ExtraExtensions: null,
    ...extensionFieldsJson(fields),
  };
  return { json, serial };
}

function readTime(r: DerReader): string {
  if (!r.peekTag(TAG.UTCTime) && !r.peekTag(TAG.GeneralizedTime)) fail('x509: unsupported time format');
  const el = r.readAny();
  const t = el && asn1Time(el);
  if (t === undefined) fail(el?.tag === TAG.GeneralizedTime ? 'x509: malformed GeneralizedTime' : 'x509: malformed UTCTime');
  return t;
}
