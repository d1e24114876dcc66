import { describe, expect, it } from 'vitest';
import shipped from '../../../src/merge/ssa/builtin-schema.json' with { type: 'json' };
import { builtinKindIndex } from '../../../src/merge/ssa/builtin-kinds.js';
import { builtinKindType, builtinSchema } from '../../../src/merge/ssa/builtin-schema.js';
import { decodeCompactSchema, encodeCompactSchema, type CompactSchema } from '../../../src/merge/ssa/compact-schema.js';
import { applyStructuredMergeDiff, atomicGuard } from '../../../src/merge/ssa/index.js';
import { describeShared } from '../../support/shared.js';
import { builtinSchema as corpusSchema } from './support.js';

const table = shipped as unknown as CompactSchema;

describe('built-in schema table (src/merge/ssa/builtin-schema.json)', () => {
  it('decodes, and re-encodes to the same table', () => {
    const d = decodeCompactSchema(table);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(encodeCompactSchema(d.value.schema, table.names, kindNames(table), table.source)).toStrictEqual(table);
  });

  it('indexes the built-in kinds by group/version/Kind', () => {
    expect(builtinKindType('', 'v1', 'Pod')).toStrictEqual({ namedType: 'io.k8s.api.core.v1.Pod' });
    expect(builtinKindType('apps', 'v1', 'Deployment')).toStrictEqual({ namedType: 'io.k8s.api.apps.v1.Deployment' });
    expect(builtinKindType('networking.k8s.io', 'v1', 'Ingress')).toStrictEqual({ namedType: 'io.k8s.api.networking.v1.Ingress' });
    expect(builtinKindType('rbac.authorization.k8s.io', 'v1', 'Role')).toStrictEqual({ namedType: 'io.k8s.api.rbac.v1.Role' });
    expect(builtinKindType('admissionregistration.k8s.io', 'v1', 'MutatingAdmissionPolicy')).toBeDefined();
    expect(builtinKindType('example.com', 'v1', 'Widget')).toBeUndefined();
  });

  it('carries list types, map keys, atomicity and key defaults', () => {
    const s = builtinSchema();
    if (!s.ok) throw new Error('decode failed');
    const pod = builtinKindType('', 'v1', 'Pod')!;
    expect(
      atomicGuard(s.value.schema, pod, {
        spec: { tolerations: [], nodeSelector: {}, containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { fieldRef: { fieldPath: 'x' } } }] }] },
      }),
    ).toStrictEqual(['.spec.tolerations', '.spec.nodeSelector', '.spec.containers[0].env[0].valueFrom.fieldRef']);
    // ports are keyed by containerPort and protocol, whose default TCP completes a key the patch omits.
    const live = { apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } };
    const patch = { apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, name: 'http' }] }] } };
    const r = applyStructuredMergeDiff(s.value.schema, pod, live, patch);
    expect(r.ok && r.value).toStrictEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] }] },
    });
  });
});

describeShared('built-in schema table matches the corpus schema', () => {
  it('is what scripts/gen-k8s-schema.ts generates from k8s-schema/smd-schema-builtin.yaml', () => {
    const schema = corpusSchema();
    const regenerated = encodeCompactSchema(schema, schema.typeNames(), builtinKindIndex(schema), table.source);
    expect(regenerated).toStrictEqual(table);
  });
});

function kindNames(t: CompactSchema): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [gvk, i] of Object.entries(t.kinds)) out[gvk] = t.names[i]!;
  return out;
}
