/**
 * Kyverno's `images` context and `{{ }}` holes nested in quoted identifiers, translated to MAP and to a
 * MutatingPolicy and re-executed: each translation must give what our Kyverno engine gives (the object, or a
 * denial where Kyverno's rule fails) on Pods and Deployments whose images cover the parse's branches.
 */
import { describe, expect, it } from 'vitest';
import { apply } from '../../../src/interpreter/index.js';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { kyvernoPolicies as parsedKyverno, refusal, translatedTo } from './kyverno-support.js';
import { generateMap } from '../../../src/dialects/map/generate.js';

function kyverno(kinds: string, mutate: string): Policy[] {
  const text = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: images
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  rules:
  - name: r
    match:
      any:
      - resources:
          kinds: [${kinds}]
    mutate:
${mutate}`;
  return parsedKyverno(text);
}

const translated = translatedTo;

function outcome(policies: Policy[], object: JsonValue): unknown {
  const r = apply(policies, { object, operation: 'CREATE' });
  return r.allowed !== false && 'object' in r && r.object !== undefined ? r.object : { denied: true };
}

const DIGEST = `sha256:${'a1'.repeat(32)}`;
const IMAGES = [
  'nginx',
  'nginx:1.25',
  `docker.io/library/nginx@${DIGEST}`,
  `registry.example.com:8443/team/app:v2@${DIGEST}`,
  'localhost:5000/app:v1',
  'localhost/app',
  'ghcr.io/org/team/app:2.0',
  'my_reg.io/app:1',
  'MyRepo/app',
  'Nginx',
  'example.com/UPPER:1',
  '[::1]:5000/app',
];

const pod = (containers: JsonObject[], initContainers?: JsonObject[]): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'prod', labels: { app: 'web' } },
  spec: { ...(initContainers ? { initContainers } : {}), containers },
});

const PODS: JsonObject[] = [
  ...IMAGES.map((image) => pod([{ name: 'web', image }, { name: 'side-car', image: 'busybox:1.36' }])),
  pod([{ name: 'web', image: 'nginx' }], [{ name: 'web', image: 'alpine:3' }]),
  pod([{ name: 'web' } as JsonObject]),
];

const FOREACH = `      foreach:
      - list: request.object.spec.containers
        patchStrategicMerge:
          spec:
            containers:
            - name: '{{ element.name }}'
              image: 'mirror.io/{{ images.containers."{{ element.name }}".path }}:{{ images.containers."{{ element.name }}".tag || ''latest'' }}'`;

const ANNOTATIONS = `      patchStrategicMerge:
        metadata:
          annotations:
            registry: '{{ images.containers.web.registry || ''none'' }}'
            reference: '{{ images.containers."{{ request.object.metadata.labels.app }}".reference }}'
            init: '{{ images.initContainers.web.name || ''-'' }}'
            digest: '{{ images.containers.web.digest || ''-'' }}'
            pointer: '{{ images.containers."side-car".jsonPointer || ''-'' }}'`;

// A list of `images` as a whole: a map of container name to entry (the last container's of a name).
const WHOLE = `      patchStrategicMerge:
        metadata:
          annotations:
            registries: '{{ join(''+'', images.containers.*.registry || \`[]\`) }}'
            names: '{{ join(''+'', keys(images.containers)) }}'
            inits: 'n{{ length(images.initContainers || \`{}\`) }}'
            tags: '{{ join(''+'', images.initContainers.*.tag || \`["none"]\`) }}'`;

const WHOLE_STRICT = `      patchStrategicMerge:
        metadata:
          annotations:
            inits: 'n{{ length(images.initContainers) }}'`;

describe('Kyverno images and nested holes, to MAP and MutatingPolicy', () => {
  for (const [what, mutate] of [
    ['a foreach over containers rewriting each image from its own entry', FOREACH],
    ['annotations from entries looked up by a literal and by a templated name', ANNOTATIONS],
    ['annotations from a list of images as a whole', WHOLE],
  ] as const) {
    for (const to of ['map', 'kyverno-mpol'] as const) {
      it(`${what} (${to}) gives Kyverno's result on every Pod`, () => {
        const source = kyverno('Pod', mutate);
        const target = translated(source, to);
        let changed = 0;
        for (const object of PODS) {
          const want = outcome(source, object);
          if (JSON.stringify(want) !== JSON.stringify(object)) changed++;
          expect(outcome(target, object), JSON.stringify((object.spec as JsonObject).containers)).toEqual(want);
        }
        expect(changed, 'the policy changes most Pods').toBeGreaterThan(PODS.length / 2);
      });
    }
  }

  it('a list of images read whole where the Pod has none of it fails where Kyverno fails', () => {
    const source = kyverno('Pod', WHOLE_STRICT);
    for (const to of ['map', 'kyverno-mpol'] as const) {
      const target = translated(source, to);
      for (const object of PODS) expect(outcome(target, object), `${to} ${JSON.stringify(object.spec)}`).toEqual(outcome(source, object));
    }
  });

  it('a second rule reads the images the object came with: refused after a rule that may change them, kept after one that cannot', () => {
    const policyOf = (first: string): Policy[] =>
      parsedKyverno(`apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: images
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  rules:
  - name: first
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
${first}
  - name: second
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      patchStrategicMerge:
        metadata:
          annotations:
            registry: '{{ images.containers.web.registry || ''none'' }}'`);
    // Kyverno's second rule still reads the images the Pod came with, after the first rewrote them.
    const rewriting = policyOf(FOREACH);
    expect(refusal(rewriting)).toContain('`images` read after an earlier rule of the policy may have changed that container list');
    const labelling = policyOf(`      patchStrategicMerge:
        metadata:
          labels:
            seen: 'yes'`);
    expect(refusal(labelling)).toBe('');
    const notes = generateMap(labelling).diagnostics.map((d) => d.message);
    expect(notes.some((m) => m.includes("`images` are parsed by Kyverno's webhook from the request's object"))).toBe(true);
    const target = translated(labelling, 'kyverno-mpol');
    for (const object of PODS) expect(outcome(target, object)).toEqual(outcome(labelling, object));
    // An earlier rule rewriting another list: the same entries, with the failure of a broken container noted.
    const otherList = policyOf(FOREACH.replaceAll('containers', 'initContainers'));
    expect(refusal(otherList)).toBe('');
    const otherNotes = generateMap(otherList).diagnostics.map((d) => d.message);
    expect(otherNotes.some((m) => m.includes('may have changed another container list'))).toBe(true);
    const otherTarget = translated(otherList, 'kyverno-mpol');
    for (const object of PODS) expect(outcome(otherTarget, object)).toEqual(outcome(otherList, object));
  });

  it('reads the pod template of a Deployment', () => {
    const source = kyverno('apps/v1/Deployment', `      patchStrategicMerge:
        metadata:
          annotations:
            tag: '{{ images.containers.web.tag }}'
            pointer: '{{ images.containers.web.jsonPointer }}'`);
    const target = translated(source, 'map');
    for (const image of IMAGES) {
      const object = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'prod' }, spec: { selector: {}, template: { spec: { containers: [{ name: 'web', image }] } } } };
      expect(outcome(target, object), image).toEqual(outcome(source, object));
    }
  });
});
