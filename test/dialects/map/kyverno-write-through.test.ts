/**
 * Kyverno's `- (emptyDir): {+(sizeLimit): …}` list element (a condition whose +() keys Kyverno writes),
 * translated to MAP and re-executed: the MAP must give what our Kyverno engine gives on every object, for a
 * plain patch and a foreach (which applies the same patch once per element), on a list kyaml merges by name
 * and on one it replaces (a kind it has no schema for).
 */
import { describe, expect, it } from 'vitest';
import { kyvernoDialect } from '../../../src/dialects/kyverno/index.js';
import { apply } from '../../../src/interpreter/index.js';
import { createRuntime } from '../../../src/runtime/index.js';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { docs } from './support.js';
import { toMap } from './kyverno-support.js';

function kyverno(rule: string, kinds: string): Policy[] {
  const text = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: sizes}
spec:
  rules:
  - name: r
    match:
      any:
      - resources:
          kinds: [${kinds}]
    mutate:
${rule}`;
  const r = kyvernoDialect.parse(docs(text));
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r.policies;
}

/** The result, or `{denied}`; a kind without schema is typed as the cluster's CRD would be (deduced from the object). */
function outcome(policies: Policy[], object: JsonValue): unknown {
  const r = apply(policies, { object, operation: 'CREATE' }, { runtime: createRuntime({ schemas: { unknownKinds: 'deduced' } }) });
  return r.allowed !== false && 'object' in r && r.object !== undefined ? r.object : { denied: true };
}

const PLAIN = `      patchStrategicMerge:
        spec:
          template:
            spec:
              volumes:
              - (emptyDir):
                  +(sizeLimit): 20Mi
                  +(medium): Memory`;

const FOREACH_UNNAMED = `      foreach:
      - list: request.object.spec.template.spec.volumes
        patchStrategicMerge:
          spec:
            template:
              spec:
                volumes:
                - (emptyDir):
                    +(sizeLimit): 20Mi
                    +(medium): Memory`;

const FOREACH_TWO = `      foreach:
      - list: request.object.spec.template.spec.volumes
        patchStrategicMerge:
          spec:
            template:
              spec:
                volumes:
                - (emptyDir):
                    +(sizeLimit): 20Mi
                    +(medium): Memory
                  name: '{{ element.name }}'`;

const FOREACH = `      foreach:
      - list: request.object.spec.template.spec.volumes
        patchStrategicMerge:
          spec:
            template:
              spec:
                volumes:
                - (emptyDir):
                    +(sizeLimit): 20Mi
                  name: '{{ element.name }}'`;

const v = (name: string, emptyDir?: JsonObject): JsonObject => (emptyDir === undefined ? { name, hostPath: { path: `/${name}` } } : { name, emptyDir });

const VOLUME_SETS: JsonObject[][] = [
  [],
  [v('a', {})],
  [v('a', { sizeLimit: '1Gi' })],
  [v('h'), v('a', {}), v('b', {})],
  [v('a', {}), v('h'), v('b', { sizeLimit: '20Mi' }), v('c', { sizeLimit: '20971520' })],
  [v('a', { sizeLimit: '5Mi' }), v('b', {}), v('h'), v('c', { sizeLimit: '1Gi', medium: 'Memory' })],
  [v('a', { medium: 'Memory' }), v('b', { sizeLimit: '20Mi', medium: 'Memory' }), v('c', { medium: '' })],
  [v('h'), v('g')],
  [v('a', { sizeLimit: '1Gi', medium: 'Memory' }), v('b', {}), v('c', { sizeLimit: '20Mi' })],
  [v('h'), v('a', { sizeLimit: '1Gi', medium: 'Memory' }), v('b', {})],
  [v('a', { sizeLimit: '5Mi' }), v('b', {})],
  [v('a', { medium: 'Memory' }), v('b', { medium: 'Memory' }), v('c', {}), v('d', { sizeLimit: '20Mi' })],
];

function workload(apiVersion: string, kind: string, volumes: JsonObject[]): JsonObject {
  return { apiVersion, kind, metadata: { name: 'w', namespace: 'prod' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }], volumes } } } };
}

describe('Kyverno condition anchors whose +() keys are written, to MAP', () => {
  for (const [what, rule] of [
    ['a strategic merge', PLAIN],
    ['a foreach (one application per element)', FOREACH],
    ['a foreach whose element has no name of its own', FOREACH_UNNAMED],
    ['a foreach writing two keys', FOREACH_TWO],
  ] as const) {
    it(`${what} on a list merged by name gives Kyverno's result on every object`, () => {
      const source = kyverno(rule, 'apps/v1/Deployment');
      const map = toMap(source);
      for (const volumes of VOLUME_SETS) {
        const object = workload('apps/v1', 'Deployment', volumes);
        expect(outcome(map, object), JSON.stringify(volumes)).toEqual(outcome(source, object));
      }
    });

    it(`${what} on a list Kyverno replaces (a kind without schema) gives Kyverno's result on every object`, () => {
      const source = kyverno(rule, 'example.com/v1/Workload');
      const map = toMap(source);
      for (const volumes of VOLUME_SETS) {
        const object = workload('example.com/v1', 'Workload', volumes);
        expect(outcome(map, object), JSON.stringify(volumes)).toEqual(outcome(source, object));
      }
    });
  }

  it('a kind matched in any group gets the merge by name for apps/v1 and the replacement for the others', () => {
    const source = kyverno(FOREACH, 'Deployment');
    const map = toMap(source);
    for (const volumes of VOLUME_SETS) {
      for (const apiVersion of ['apps/v1', 'example.com/v1']) {
        const object = workload(apiVersion, 'Deployment', volumes);
        expect(outcome(map, object), `${apiVersion} ${JSON.stringify(volumes)}`).toEqual(outcome(source, object));
      }
    }
  });

  it('Kyverno writes only the first element with the key; the others only move (the shared copy)', () => {
    const source = kyverno(PLAIN, 'apps/v1/Deployment');
    const out = outcome(toMap(source), workload('apps/v1', 'Deployment', [v('h'), v('a', {}), v('b', {})])) as JsonObject;
    const volumes = ((out.spec as JsonObject).template as JsonObject).spec as JsonObject;
    expect(volumes.volumes).toEqual([v('a', { sizeLimit: '20Mi', medium: 'Memory' }), v('h'), v('b', {})]);
  });

  it('an element with the key but no name fails the MAP mutation instead of guessing', () => {
    const map = toMap(kyverno(PLAIN, 'apps/v1/Deployment'));
    expect(outcome(map, workload('apps/v1', 'Deployment', [{ emptyDir: {} } as JsonObject]))).toEqual({ denied: true });
  });
});
