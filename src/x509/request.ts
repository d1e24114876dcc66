/**
 * x509.ParseCertificateRequest (x509.go: encoding/asn1 into certificateRequest, then parseCertificateRequest)
 * rendered as Kyverno's x509_decode returns it. encoding/asn1's structure errors embed Go type dumps; only
 * their first clause is reproduced.
 */
import { PUBLIC_KEY_RSA, publicKeyAlgorithm, readAlgorithmIdentifier, signatureAlgorithm } from './algorithms.js';
import { contextTag, DerReader, oidString, rightAlign, TAG, type Element } from './der.js';
import { extensionJson, parseSubjectAltNames, sanJson, type Extension, type SubjectAltNames } from './extensions.js';
import { bytes, csrAttributeValue, fail, slice, type Json } from './go-json.js';
import { requestName } from './names.js';
import { kyvernoPublicKey, parseRsaKey } from './public-key.js';

const STRUCTURE = "asn1: structure error: tags don't match";
const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const SUBJECT_ALT_NAME = '2.5.29.17';

export function decodeCertificateRequest(der: Uint8Array): Json {
  const top = new DerReader(der);
  const csrEl = top.read(TAG.SEQUENCE);
  if (!csrEl) fail(der.length < 2 ? 'asn1: syntax error: data truncated' : STRUCTURE);
  if (!top.empty()) fail('asn1: syntax error: trailing data');
  const csr = new DerReader(csrEl.contents);
  const tbsEl = csr.read(TAG.SEQUENCE);
  const sigAISeq = csr.enter(TAG.SEQUENCE);
  const sigAI = sigAISeq && readAlgorithmIdentifier(sigAISeq);
  const signature = csr.readBitString();
  if (!tbsEl || !sigAI || !signature) fail(STRUCTURE);

  const tbs = new DerReader(tbsEl.contents);
  const version = tbs.readInteger();
  const subjectEl = tbs.readAny();
  const spkiEl = tbs.read(TAG.SEQUENCE);
  const attributesEl = tbs.read(contextTag(0, true));
  if (version === undefined || !subjectEl || !spkiEl || !attributesEl) fail(STRUCTURE);
  if (version > 0x7fffffffffffffffn || version < -0x8000000000000000n) fail('asn1: structure error: integer too large');
  const spki = new DerReader(spkiEl.contents);
  const pkAISeq = spki.enter(TAG.SEQUENCE);
  const pkAI = pkAISeq && readAlgorithmIdentifier(pkAISeq);
  const spk = spki.readBitString();
  if (!pkAI || !spk) fail(STRUCTURE);

  const rawAttributes: Element[] = [];
  const attrs = new DerReader(attributesEl.contents);
  while (!attrs.empty()) {
    const el = attrs.readAny();
    if (!el) fail('asn1: syntax error: data truncated');
    rawAttributes.push(el);
  }

  const pkAlgorithm = publicKeyAlgorithm(pkAI.oid);
  // Go parses every known key type here; only RSA goes further in Kyverno, so other keys are not validated.
  const rsa = pkAlgorithm === PUBLIC_KEY_RSA ? parseRsaKey(pkAI, spk) : undefined;
  const subject = requestName(subjectEl);
  const extensions = requestedExtensions(rawAttributes);
  let san: SubjectAltNames = {};
  for (const e of extensions ?? []) if (oidString(e.id) === SUBJECT_ALT_NAME) san = parseSubjectAltNames(e.value);

  if (!rsa) fail('certificate should use rsa algorithm');
  return {
    Raw: bytes(csrEl.full),
    RawTBSCertificateRequest: bytes(tbsEl.full),
    RawSubjectPublicKeyInfo: bytes(spkiEl.full),
    RawSubject: bytes(subjectEl.full),
    Version: Number(version),
    Signature: bytes(rightAlign(signature)),
    SignatureAlgorithm: signatureAlgorithm(sigAI),
    PublicKeyAlgorithm: pkAlgorithm,
    PublicKey: kyvernoPublicKey(spk, rsa),
    Subject: subject,
    Attributes: slice(attributeSets(rawAttributes), (x) => x),
    Extensions: slice(extensions, extensionJson),
    ExtraExtensions: null,
    ...sanJson(san),
  };
}

/** x509.go parseRawAttributes: the attributes that decode as pkix.AttributeTypeAndValueSET; others are dropped. */
function attributeSets(raw: readonly Element[]): Json[] | undefined {
  let out: Json[] | undefined;
  for (const el of raw) {
    const set = attributeSet(el);
    if (set !== undefined) (out ??= []).push(set);
  }
  return out;
}

function attributeSet(el: Element): Json | undefined {
  if (el.tag !== TAG.SEQUENCE) return undefined;
  const seq = new DerReader(el.contents);
  const type = seq.readOid();
  const values = seq.enter(TAG.SET);
  if (!type || !values) return undefined;
  const value: Json[] = [];
  while (!values.empty()) {
    const inner = values.enter(TAG.SEQUENCE);
    if (!inner) return undefined;
    const atvs: Json[] = [];
    while (!inner.empty()) {
      const atv = inner.enter(TAG.SEQUENCE);
      const t = atv?.readOid();
      const v = atv?.readAny();
      if (!t || !v) return undefined;
      const decoded = csrAttributeValue(v);
      if (typeof decoded === 'string') return undefined;
      atvs.push({ Type: t, Value: decoded.value });
    }
    value.push(atvs);
  }
  return { Type: type, Value: value };
}

/** x509.go parseCSRExtensions: the extensions of every extensionRequest attribute, without duplicates. */
function requestedExtensions(raw: readonly Element[]): Extension[] | undefined {
  let out: Extension[] | undefined;
  const seen = new Set<string>();
  for (const el of raw) {
    if (el.tag !== TAG.SEQUENCE) continue;
    const seq = new DerReader(el.contents);
    const id = seq.readOid();
    const values = seq.read(TAG.SET);
    if (!id || !values || values.contents.length === 0 || oidString(id) !== EXTENSION_REQUEST) continue;
    const list = new DerReader(values.contents).enter(TAG.SEQUENCE);
    if (!list) fail(STRUCTURE);
    while (!list.empty()) {
      const ext = list.enter(TAG.SEQUENCE);
      const extId = ext?.readOid();
      if (!ext || !extId) fail(STRUCTURE);
      let critical = false;
      if (ext.peekTag(TAG.BOOLEAN)) {
        const b = ext.readBoolean();
        if (b === undefined) fail('asn1: syntax error: invalid boolean');
        critical = b;
      }
      const value = ext.read(TAG.OCTET_STRING);
      if (!value) fail(STRUCTURE);
      const key = oidString(extId);
      if (seen.has(key)) fail('x509: certificate request contains duplicate requested extensions');
      seen.add(key);
      (out ??= []).push({ id: extId, critical, value: value.contents });
    }
  }
  return out;
}
