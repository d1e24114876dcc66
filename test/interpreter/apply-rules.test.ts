/** Semantics.applyRules: `one` stops a sequential policy after the first rule that changed the object. */
import { describe, expect, it } from 'vitest';
import { apply } from '../../src/interpreter/index.js';
import type { JsonValue } from '../../src/ir/json.js';
import { parseIrText } from '../../src/ir/parse-text.js';
import { printPolicies } from '../../src/ir/print.js';
import type { AdmissionRequest } from '../../src/k8s/request.js';

const text = (applyRules: string) => `policy p
  semantics sequential${applyRules}
  rule unchanged
    set object.metadata.labels.a = "1"
  rule first
    set object.metadata.labels.b = "2"
  rule second
    set object.metadata.labels.c = "3"
`;

function labels(applyRules: string): JsonValue | undefined {
  const parsed = parseIrText('t.ir', text(applyRules));
  if (!parsed.ok) throw new Error(parsed.diagnostics.map((d) => d.message).join('; '));
  const object: JsonValue = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', labels: { a: '1' } } };
  const request: AdmissionRequest = { object, oldObject: null, operation: 'CREATE', userInfo: {}, namespaceObject: null, params: null };
  const r = apply(parsed.value, request, { trace: false });
  expect(r.allowed).toBe(true);
  return (r.object as { metadata: { labels: JsonValue } }).metadata.labels;
}

describe('applyRules', () => {
  it('all (the default) runs every rule', () => {
    expect(labels('')).toEqual({ a: '1', b: '2', c: '3' });
    expect(labels(' applyRules=all')).toEqual({ a: '1', b: '2', c: '3' });
  });
  it('one stops after the first rule that changed the object; a rule that wrote an equal value did not', () => {
    expect(labels(' applyRules=one')).toEqual({ a: '1', b: '2' });
  });
  it('prints and reads back', () => {
    const parsed = parseIrText('t.ir', text(' failurePolicy=fail applyRules=one'));
    expect(parsed.ok && parsed.value[0]!.semantics).toEqual({ order: 'sequential', failurePolicy: 'fail', applyRules: 'one' });
    if (parsed.ok) expect(printPolicies(parsed.value)).toContain('semantics sequential failurePolicy=fail applyRules=one');
    expect(parseIrText('t.ir', text(' applyRules=some')).ok).toBe(false);
  });
});
