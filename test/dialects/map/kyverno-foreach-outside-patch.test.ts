/**
 * A foreach JSON patch whose steps write outside the iterated element (annotate-base-images' shape): each
 * iteration's adds apply to what the ones before left, and the first add under a missing map or list creates
 * it (EnsurePathExistsOnAdd). Translated to MAP and to a MutatingPolicy and re-executed against our Kyverno
 * engine on Pods with and without the containers written into.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { translate } from '../../../src/pipeline.js';
import { outcome, podRule, translatedTo } from './kyverno-support.js';

/** A rule of one foreach over the containers whose JSON patch is `patch` (YAML text), under `extra` keys. */
function policy(patch: string, extra = ''): Policy[] {
  return podRule(
    'outside',
    `mutate:
  foreach:
  - list: request.object.spec.containers
${extra ? `${extra.replace(/^/gm, '    ')}\n` : ''}    patchesJson6902: |-
${patch.replace(/^/gm, '      ')}`,
  );
}

const pod = (metadata: JsonObject, spec: JsonObject = {}): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod', ...metadata },
  spec: { containers: [{ name: 'app', image: 'nginx' }, { name: 'side', image: 'envoy' }], ...spec },
});

const PODS: JsonObject[] = [
  pod({}),
  pod({ annotations: { keep: 'k', 'example.com/app': 'old' }, labels: { team: 'a' } }),
  pod({}, { tolerations: [{ key: 'x', operator: 'Exists' }], nodeSelector: { zone: 'z' } }),
  pod({ labels: {} }, { containers: [{ name: 'only', image: 'nginx:1.2' }] }),
];

const CASES: [string, string, string?][] = [
  ['a key holding the element index, in a map that may be missing', '- op: add\n  path: /metadata/annotations/kyverno.io~1image{{elementIndex}}\n  value: "{{ element.image }}"'],
  ['a key holding the element name, quoted path', '- op: add\n  path: "/metadata/annotations/example.com~1{{ element.name }}"\n  value: "{{ element.image }}"'],
  ['a fixed key every iteration writes (the last one wins)', '- op: add\n  path: /metadata/labels/last\n  value: "{{ element.name }}"'],
  ['an append to a list that may be missing', '- op: add\n  path: /spec/tolerations/-\n  value: {key: "{{ element.name }}", operator: Exists}'],
  [
    'two steps into two maps below one that may be missing',
    '- op: add\n  path: /spec/nodeSelector/c-{{elementIndex}}\n  value: "{{ element.name }}"\n- op: add\n  path: /metadata/annotations/seen-{{ element.name }}\n  value: "yes"',
  ],
  ['under a precondition some elements fail (none may pass)', '- op: add\n  path: /metadata/annotations/nginx-{{elementIndex}}\n  value: "{{ element.name }}"', "preconditions:\n  all:\n  - key: \"{{ element.image }}\"\n    operator: Equals\n    value: nginx"],
  ['in descending order', '- op: add\n  path: /metadata/labels/first\n  value: "{{ element.name }}"', 'order: Descending'],
];

describe('a foreach JSON patch outside the iterated element', () => {
  for (const [what, patch, extra] of CASES) {
    it(`${what}: MAP and MutatingPolicy give what Kyverno gives`, () => {
      const source = policy(patch, extra);
      for (const to of ['map', 'kyverno-mpol'] as const) {
        const target = translatedTo(source, to);
        for (const p of PODS) expect(outcome(target, p), `${to} ${JSON.stringify(p)}`).toEqual(outcome(source, p));
      }
    });
  }

  it('two entries adding into the same missing map: the second finds what the first made', () => {
    for (const precondition of ['', 'preconditions:\n  all:\n  - key: "{{ request.object.metadata.name }}"\n    operator: Equals\n    value: p\n']) {
      const entry = (prefix: string) => `- list: request.object.spec.containers\n  patchesJson6902: |-\n    - op: add\n      path: /metadata/annotations/${prefix}-{{elementIndex}}\n      value: "{{ element.name }}"`;
      const source = podRule('two', `${precondition}mutate:\n  foreach:\n${entry('a').replace(/^/gm, '  ')}\n${entry('b').replace(/^/gm, '  ')}`);
      const g = translate(source, 'kyverno-mpol', 'error');
      if (g.diagnostics.some((d) => d.severity === 'error')) {
        expect(g.diagnostics.map((d) => d.message).join('\n')).toContain('where an entry reads what an earlier one writes');
        continue;
      }
      const target = translatedTo(source, 'kyverno-mpol');
      for (const p of PODS) expect(outcome(target, p), JSON.stringify(p)).toEqual(outcome(source, p));
    }
  });

  it('changes something: the adds land', () => {
    const r = outcome(translatedTo(policy(CASES[0]![1]), 'kyverno-mpol'), PODS[0]!) as JsonObject;
    expect((r.metadata as JsonObject).annotations).toEqual({ 'kyverno.io/image0': 'nginx', 'kyverno.io/image1': 'envoy' });
  });

  const refusedWhy = (patch: string): string =>
    translate(policy(patch), 'kyverno-mpol', 'error')
      .diagnostics.map((d) => d.message)
      .join('\n');

  it('removes and replaces outside the element, and a container written whole and under, are not translated', () => {
    expect(refusedWhy('- op: remove\n  path: /metadata/annotations/a{{elementIndex}}')).toContain('removes outside the iterated element');
    expect(refusedWhy('- op: replace\n  path: /metadata/labels/x\n  value: "{{ element.name }}"')).toContain('replaces outside the iterated element');
    expect(refusedWhy('- op: add\n  path: /metadata/labels\n  value: {}\n- op: add\n  path: /metadata/labels/x\n  value: "{{ element.name }}"')).toContain('adds under it');
  });
});
