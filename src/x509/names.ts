/**
 * Distinguished names: parser.go parseName for certificates (values read by readASN1Any) and encoding/asn1's
 * RDNSequence for certificate requests (values decoded into interface{}), then pkix.Name FillFromRDNSequence.
 */
import { DerReader, TAG, type Element } from './der.js';
import { certAttributeValue, csrAttributeValue, fail, pkixName, type Json, type NameAttribute } from './go-json.js';

export function certificateName(raw: Element): Json {
  const seq = new DerReader(raw.full).enter(TAG.SEQUENCE);
  if (!seq) fail('x509: invalid RDNSequence');
  const attributes: NameAttribute[] = [];
  while (!seq.empty()) {
    const set = seq.enter(TAG.SET);
    if (!set) fail('x509: invalid RDNSequence');
    while (!set.empty()) {
      const atv = set.enter(TAG.SEQUENCE);
      if (!atv) fail('x509: invalid RDNSequence: invalid attribute');
      const type = atv.readOid();
      if (!type) fail('x509: invalid RDNSequence: invalid attribute type');
      const el = atv.readAny();
      const v = el ? certAttributeValue(el) : 'invalid ASN.1 element';
      if (typeof v === 'string') fail(`x509: invalid RDNSequence: invalid attribute value: ${v}`);
      attributes.push({ type, value: v.value, isString: v.isString });
    }
  }
  return pkixName(attributes);
}

/** encoding/asn1's messages are long and carry Go type dumps; the first clause is kept. */
export function requestName(raw: Element): Json {
  const outer = new DerReader(raw.full);
  const seq = outer.enter(TAG.SEQUENCE);
  if (!seq) fail('asn1: structure error: tags don\'t match');
  if (!outer.empty()) fail('x509: trailing data after X.509 Subject');
  const attributes: NameAttribute[] = [];
  while (!seq.empty()) {
    const set = seq.enter(TAG.SET);
    if (!set) fail('asn1: structure error: tags don\'t match');
    while (!set.empty()) {
      const atv = set.enter(TAG.SEQUENCE);
      const type = atv?.readOid();
      const el = atv?.readAny();
      if (!atv || !type || !el) fail('asn1: structure error: tags don\'t match');
      const v = csrAttributeValue(el);
      if (typeof v === 'string') fail(v);
      attributes.push({ type, value: v.value, isString: v.isString });
    }
  }
  return pkixName(attributes);
}
