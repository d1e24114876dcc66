import { describe, expect, it } from 'vitest';
import { enterSchemaEnvironment, kindSchema, unknownKindMessage, withSchemaEnvironment } from '../../../../src/engines/ssa.js';
import { convertOpenApiSchema } from '../../../../src/merge/ssa/openapi/convert.js';
import { formatGvk, KindSchemaTable } from '../../../../src/merge/ssa/openapi/kinds.js';

const WIDGET = { group: 'example.com', version: 'v1', kind: 'Widget' };

function widgetTable(): KindSchemaTable {
  const r = convertOpenApiSchema({ type: 'object', properties: { spec: { type: 'object' } } }, { name: 'com.example.v1.Widget' });
  if (!r.ok) throw new Error('convert');
  return new KindSchemaTable().set(WIDGET, r.value);
}

describe('schema environments (engines/ssa.ts)', () => {
  it('custom kinds are known only inside their environment, which is restored even when the run throws', () => {
    const table = widgetTable();
    expect(kindSchema(WIDGET)).toBeUndefined();
    expect(withSchemaEnvironment({ kinds: table }, () => kindSchema(WIDGET))).toBe(table.get(WIDGET));
    expect(() =>
      withSchemaEnvironment({ kinds: table }, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(kindSchema(WIDGET)).toBeUndefined();
  });

  it('nested environments inherit what they leave out; enter/leave restores the enclosing one', () => {
    const table = widgetTable();
    const leave = enterSchemaEnvironment({ kinds: table });
    try {
      expect(withSchemaEnvironment({ unknownKinds: 'deduced' }, () => kindSchema(WIDGET))).toBe(table.get(WIDGET));
    } finally {
      leave();
    }
    expect(kindSchema(WIDGET)).toBeUndefined();
  });

  it('custom kinds win over the built-in table; built-in kinds stay known', () => {
    const r = convertOpenApiSchema({ type: 'object' }, { name: 'MyPod' });
    if (!r.ok) throw new Error('convert');
    const pod = { group: '', version: 'v1', kind: 'Pod' };
    const builtin = kindSchema(pod);
    expect(builtin?.typeRef).toStrictEqual({ namedType: 'io.k8s.api.core.v1.Pod' });
    expect(withSchemaEnvironment({ kinds: new KindSchemaTable().set(pod, r.value) }, () => kindSchema(pod))).toBe(r.value);
  });

  it('words the unknown-kind error as kube-apiserver (Go GroupVersionKind.String())', () => {
    expect(formatGvk({ group: '', version: 'v1', kind: 'Pod' })).toBe('/v1, Kind=Pod');
    expect(unknownKindMessage(WIDGET)).toBe(
      'Resource kind example.com/v1, Kind=Widget not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.',
    );
  });
});
