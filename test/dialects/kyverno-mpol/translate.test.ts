import { describe, expect, it } from 'vitest';
import { parseText } from '../../../src/golden/run.js';
import { translate } from '../../../src/pipeline.js';
import { podPolicy } from './support.js';

describe('kyverno-mpol: translation', () => {
  it('refuses to pass MutatingPolicy CEL through as MAP CEL (Kyverno environment), at the policy', () => {
    const text = podPolicy('p', `mutations:
- patchType: JSONPatch
  jsonPatch:
    expression: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"name": request.object.metadata.name}}]'`);
    const parsed = parseText('mpol.yaml', text);
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const g = translate(parsed.policies, 'map', 'error');
    expect(g.diagnostics.map((d) => d.code)).toContain('TM4001');
    expect(g.diagnostics.find((d) => d.code === 'TM4001')!.message).toContain("Kyverno's request carries it");
    expect(g.diagnostics.find((d) => d.code === 'TM4001')!.unsupported).toBe('cannot');
    expect(g.diagnostics.find((d) => d.code === 'TM4001')!.span?.file).toBe('mpol.yaml');
    expect(g.text).toBe('');
  });

  it('carries MutatingPolicy CEL that means the same in kube-apiserver over to MAP', () => {
    const text = podPolicy('p', `mutations:
- patchType: JSONPatch
  jsonPatch:
    expression: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"name": object.metadata.name}}]'`);
    const parsed = parseText('mpol.yaml', text);
    const g = translate(parsed.policies, 'map', 'error');
    expect(g.diagnostics).toEqual([]);
    expect(g.text).toContain('value: {"name": object.metadata.name}');
  });
});
