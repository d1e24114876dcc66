/** The writes images-order.ts reads from an ApplyConfiguration, and what they change of Kyverno's `images`. */
import { describe, expect, it } from 'vitest';
import { applyConfigurationWrites, imagesChanged } from '../../../src/dialects/map/kyverno/images-order.js';
import type { MatchSpec } from '../../../src/ir/match.js';

const pods: MatchSpec = { globs: 'wildcard', any: [{ kinds: [{ kind: 'Pod' }] }] };
const deployments: MatchSpec = { globs: 'wildcard', any: [{ kinds: [{ group: 'apps', kind: 'Deployment' }] }] };

describe('applyConfigurationWrites', () => {
  it('follows typed literals down to the fields they set', () => {
    expect(applyConfigurationWrites('Object{metadata: Object.metadata{labels: {"a": "b, }"}, annotations: variables.x}}')).toEqual([
      ['metadata', 'labels'],
      ['metadata', 'annotations'],
    ]);
    expect(applyConfigurationWrites('Object{spec: Object.spec{containers: [Object.spec.containers{name: "x"}], ?dnsPolicy: optional.of("None")}}')).toEqual([
      ['spec', 'containers'],
      ['spec', 'dnsPolicy'],
    ]);
  });

  it('tells nothing of an expression that is not one literal', () => {
    expect(applyConfigurationWrites('has(object.spec) ? Object{} : Object{spec: Object.spec{}}')).toBeUndefined();
    expect(applyConfigurationWrites('Object{metadata: Object.metadata{}}.metadata')).toBeUndefined();
  });
});

describe('imagesChanged', () => {
  const ac = (expression: string) => ({ patchType: 'ApplyConfiguration' as const, expression });
  const patch = (expression: string) => ({ patchType: 'JSONPatch' as const, expression });
  it('tells a read list from another one, and skips rules of other kinds', () => {
    const rewrite = patch('[JSONPatch{op: "replace", path: "/spec/containers/" + string(i) + "/image", value: "x"}]');
    expect(imagesChanged([{ mutations: [rewrite], match: pods }], pods, ['containers'])).toBe('read');
    expect(imagesChanged([{ mutations: [rewrite], match: pods }], pods, ['initContainers'])).toBe('other');
    expect(imagesChanged([{ mutations: [rewrite], match: pods }], deployments, ['containers'])).toBe('none');
    expect(imagesChanged([{ mutations: [ac('Object{metadata: Object.metadata{labels: {"a": "b"}}}')], match: pods }], pods, ['containers'])).toBe('none');
    expect(imagesChanged([{ mutations: [ac('variables.patch')], match: pods }], pods, ['containers'])).toBe('read');
  });
});
