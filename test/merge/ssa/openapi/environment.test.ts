import { describe, expect, it } from 'vitest';
import { kindSchema, unknownKindMessage } from '../../../../src/engines/ssa.js';
import { convertOpenApiSchema } from '../../../../src/merge/ssa/openapi/convert.js';
import { formatGvk, KindSchemaTable } from '../../../../src/merge/ssa/openapi/kinds.js';
import { createRuntime, deriveRuntime } from '../../../../src/runtime/index.js';

const WIDGET = { group: 'example.com', version: 'v1', kind: 'Widget' };

function widgetTable(): KindSchemaTable {
  const r = convertOpenApiSchema({ type: 'object', properties: { spec: { type: 'object' } } }, { name: 'com.example.v1.Widget' });
  if (!r.ok) throw new Error('convert');
  return new KindSchemaTable().set(WIDGET, r.value);
}

describe('schema environments (runtime schemas, engines/ssa.ts)', () => {
  it('custom kinds are known only in the runtime that was given them', () => {
    const table = widgetTable();
    const withWidget = createRuntime({ schemas: { kinds: table } });
    expect(kindSchema(WIDGET)).toBeUndefined();
    expect(kindSchema(WIDGET, createRuntime().schemas)).toBeUndefined();
    expect(kindSchema(WIDGET, withWidget.schemas)).toBe(table.get(WIDGET));
    // The runtime keeps its own copy: the caller's table changing later does not change the runtime.
    table.set({ ...WIDGET, kind: 'Gadget' }, table.get(WIDGET)!);
    expect(kindSchema({ ...WIDGET, kind: 'Gadget' }, withWidget.schemas)).toBeUndefined();
  });

  it('a derived runtime keeps what it leaves out; its base is unchanged', () => {
    const table = widgetTable();
    const base = createRuntime({ schemas: { kinds: table } });
    const deduced = deriveRuntime(base, { schemas: { unknownKinds: 'deduced' } });
    expect(kindSchema(WIDGET, deduced.schemas)).toBe(table.get(WIDGET));
    expect(deduced.schemas.unknownKinds).toBe('deduced');
    expect(base.schemas.unknownKinds).toBe('error');
    expect(Object.isFrozen(deduced)).toBe(true);
  });

  it('custom kinds win over the built-in table; built-in kinds stay known', () => {
    const r = convertOpenApiSchema({ type: 'object' }, { name: 'MyPod' });
    if (!r.ok) throw new Error('convert');
    const pod = { group: '', version: 'v1', kind: 'Pod' };
    const builtin = kindSchema(pod);
    expect(builtin?.typeRef).toStrictEqual({ namedType: 'io.k8s.api.core.v1.Pod' });
    expect(kindSchema(pod, createRuntime({ schemas: { kinds: new KindSchemaTable().set(pod, r.value) } }).schemas)).toBe(r.value);
    expect(kindSchema(pod, createRuntime().schemas)?.typeRef).toStrictEqual({ namedType: 'io.k8s.api.core.v1.Pod' });
  });

  it('words the unknown-kind error as kube-apiserver (Go GroupVersionKind.String())', () => {
    expect(formatGvk({ group: '', version: 'v1', kind: 'Pod' })).toBe('/v1, Kind=Pod');
    expect(unknownKindMessage(WIDGET)).toBe(
      'Resource kind example.com/v1, Kind=Widget not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.',
    );
  });
});
