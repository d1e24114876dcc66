/** Kyverno spec.applyRules: One is read into the IR, written back, and refused by the other targets. */
import { describe, expect, it } from 'vitest';
import { generateGatekeeper } from '../../../src/dialects/gatekeeper/generate.js';
import { generateKyverno } from '../../../src/dialects/kyverno/generate.js';
import { generateMap } from '../../../src/dialects/map/generate.js';
import { parseText } from '../../../src/golden/run.js';

const POLICY = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-labels}
spec:
  applyRules: One
  rules:
  - name: a
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate: {patchStrategicMerge: {metadata: {labels: {a: "1"}}}}
  - name: b
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate: {patchStrategicMerge: {metadata: {labels: {b: "2"}}}}
`;

describe('Kyverno applyRules: One', () => {
  const parsed = parseText('p.yaml', POLICY);
  it('parses into semantics.applyRules', () => {
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(parsed.policies[0]!.semantics.applyRules).toBe('one');
    expect(parseText('p.yaml', POLICY.replace('applyRules: One', 'applyRules: All')).policies[0]!.semantics.applyRules).toBeUndefined();
  });
  it('is written back by the Kyverno generator', () => {
    const out = generateKyverno(parsed.policies);
    expect(out.text).toContain('applyRules: One');
    expect(parseText('out.yaml', out.text).policies[0]!.semantics.applyRules).toBe('one');
  });
  it('is TM4001 for Gatekeeper and MAP', () => {
    for (const out of [generateGatekeeper(parsed.policies), generateMap(parsed.policies)]) {
      expect(out.diagnostics.some((d) => d.code === 'TM4001' && d.message.includes('applyRules: one'))).toBe(true);
    }
  });
});
