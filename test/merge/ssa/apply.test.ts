import { expect, it } from 'vitest';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../src/ir/json.js';
import { applyStructuredMergeDiff } from '../../../src/merge/ssa/index.js';
import { describeShared } from '../../support/shared.js';
import { builtinSchema, caseFile, caseManifest, deepFreeze } from './support.js';

const DEPLOYMENT = { namedType: 'io.k8s.api.apps.v1.Deployment' };

/**
 * The k8s-unit ApplyConfiguration cases, merge step only: the patch is the object the case's CEL
 * expression builds (written out here, with apiVersion/kind copied from the request object as smd.go does);
 * live object, expected object and expected error come from the corpus.
 */
const CASES: { dir: string; patchSpec: JsonObject }[] = [
  { dir: 'k8s-unit/ac-add-listmap-item', patchSpec: { template: { spec: { volumes: [{ name: 'y' }] } } } },
  {
    dir: 'k8s-unit/ac-update-listmap-item',
    patchSpec: { template: { spec: { volumes: [{ name: 'y', hostPath: { path: 'a' } }] } } },
  },
  {
    dir: 'k8s-unit/ac-complex-init',
    patchSpec: {
      replicas: 1,
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: {
          containers: [
            { name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '128M' } } },
          ],
        },
      },
    },
  },
  { dir: 'k8s-unit/ac-duplicate-env-untouched', patchSpec: { replicas: 3 } },
  {
    dir: 'k8s-unit/ac-duplicate-env-collapsed',
    patchSpec: { template: { spec: { containers: [{ name: 'nginx', env: [{ name: 'test', value: 'c' }] }] } } },
  },
  { dir: 'k8s-unit/ac-invalid-field-name', patchSpec: { replicasx: 1 } },
  { dir: 'k8s-unit/ac-atomic-struct-error', patchSpec: { selector: { matchLabels: { l: 'v' } } } },
];

function patchFor(live: JsonValue, spec: JsonObject): JsonObject {
  const obj = live as JsonObject;
  return { apiVersion: obj['apiVersion']!, kind: obj['kind']!, spec };
}

describeShared('applyStructuredMergeDiff on the built-in schema (k8s-unit ApplyConfiguration cases)', () => {
  for (const c of CASES) {
    it(c.dir, () => {
      const live = deepFreeze(caseFile(c.dir, 'object.yaml'));
      const patch = deepFreeze(patchFor(live, c.patchSpec));
      const result = applyStructuredMergeDiff(builtinSchema(), DEPLOYMENT, live, patch);
      const errorContains = caseManifest(c.dir).expect.errorContains;
      if (errorContains !== undefined) {
        expect(result.ok).toBe(false);
        if (!result.ok) expect(`error applying patch: ${result.diagnostics[0]!.message}`).toBe(errorContains);
        return;
      }
      expect(result.ok ? result.value : result.diagnostics).toStrictEqual(caseFile(c.dir, 'expected.yaml'));
    });
  }

  it('shares untouched subtrees with the live object', () => {
    const live = deepFreeze(caseFile('k8s-unit/ac-duplicate-env-untouched', 'object.yaml'));
    const result = applyStructuredMergeDiff(builtinSchema(), DEPLOYMENT, live, patchFor(live, { replicas: 3 }));
    expect(result.ok).toBe(true);
    if (!result.ok || !isJsonObject(result.value)) return;
    const spec = result.value['spec'] as JsonObject;
    expect(spec['template']).toBe((live as { spec: JsonObject }).spec['template']);
    expect(result.value['metadata']).toBe((live as JsonObject)['metadata']);
  });

  it('returns the live object itself when the patch changes nothing', () => {
    const live = deepFreeze(caseFile('k8s-unit/ac-update-listmap-item', 'object.yaml'));
    const result = applyStructuredMergeDiff(builtinSchema(), DEPLOYMENT, live, patchFor(live, { template: { spec: { volumes: [{ name: 'x' }] } } }));
    expect(result.ok && result.value).toBe(live);
  });

  it('the guard can be switched off: atomic values are then replaced (plain server-side apply)', () => {
    const live = deepFreeze(caseFile('k8s-unit/ac-atomic-struct-error', 'object.yaml'));
    const patch = patchFor(live, { selector: { matchLabels: { l: 'v' } } });
    const result = applyStructuredMergeDiff(builtinSchema(), DEPLOYMENT, live, patch, { atomicGuard: false });
    expect(result.ok && (result.value as { spec: JsonObject }).spec['selector']).toStrictEqual({ matchLabels: { l: 'v' } });
  });
});
