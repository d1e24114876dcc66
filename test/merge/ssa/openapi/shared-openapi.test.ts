import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import type { JsonValue } from '../../../../src/ir/json.js';
import { builtinSchema } from '../../../../src/merge/ssa/builtin-schema.js';
import { convertOpenApiDocument } from '../../../../src/merge/ssa/openapi/convert.js';
import type { KindSchema } from '../../../../src/merge/ssa/openapi/kinds.js';
import { isEmptyTypeRef, type TypeRef } from '../../../../src/merge/ssa/schema.js';
import { describeShared, sharedPath } from '../../../support/shared.js';

/** Just enough of an OpenAPI v3 document to edit one property's extensions. */
type OpenApiDoc = { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } };

const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

function convertedKind(file: string, group: string, version: string, kind: string, edit?: (doc: OpenApiDoc) => void): KindSchema {
  const doc = JSON.parse(readFileSync(sharedPath('conformance/map/k8s-schema/openapi-v3', file), 'utf8')) as JsonValue;
  edit?.(doc as unknown as OpenApiDoc);
  const r = convertOpenApiDocument(doc, { fallback: null });
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  expect(r.diagnostics).toStrictEqual([]);
  const k = r.value.kinds.get({ group, version, kind });
  if (!k) throw new Error(`${kind} not in ${file}`);
  return k;
}

/**
 * Walks a kind in both schemas along the fields both know (the OpenAPI test documents and the SMD table come
 * from different Kubernetes releases, so either may have fields the other lacks) and lists every difference
 * in list type, map keys, map/struct atomicity or closedness.
 */
function shapeDifferences(a: KindSchema, b: KindSchema): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (path: string, ta: TypeRef, tb: TypeRef): void => {
    const sig = `${ta.namedType}|${ta.elementRelationship}|${tb.namedType}|${tb.elementRelationship}`;
    if (ta.namedType !== undefined && tb.namedType !== undefined) {
      if (seen.has(sig)) return;
      seen.add(sig);
    }
    const x = a.schema.resolve(ta);
    const y = b.schema.resolve(tb);
    if (!x || !y) return void out.push(`${path}: unresolved`);
    // IntOrString has no `type` in OpenAPI v3 (so also a list and a map form); client-go's table says scalar.
    if (ta.namedType === INT_OR_STRING && tb.namedType === INT_OR_STRING) return;
    if (Boolean(x.list) !== Boolean(y.list) || Boolean(x.map) !== Boolean(y.map)) return void out.push(`${path}: different forms`);
    if (x.list && y.list) {
      if (x.list.elementRelationship !== y.list.elementRelationship || x.list.keys.join() !== y.list.keys.join()) {
        out.push(`${path}: list ${x.list.elementRelationship}[${x.list.keys}] vs ${y.list.elementRelationship}[${y.list.keys}]`);
      }
      walk(`${path}[]`, x.list.elementType, y.list.elementType);
    }
    if (x.map && y.map) {
      if ((x.map.elementRelationship ?? 'separable') !== (y.map.elementRelationship ?? 'separable')) {
        out.push(`${path}: map ${x.map.elementRelationship} vs ${y.map.elementRelationship}`);
      }
      if (isEmptyTypeRef(x.map.elementType) !== isEmptyTypeRef(y.map.elementType)) out.push(`${path}: closedness differs`);
      for (const f of y.map.fields) {
        const g = x.map.fieldIndex.get(f.name);
        if (g) walk(`${path}.${f.name}`, g.type, f.type);
      }
    }
  };
  walk('', a.typeRef, b.typeRef);
  return out;
}

function builtinKind(gvk: string): KindSchema {
  const b = builtinSchema();
  if (!b.ok) throw new Error('built-in table');
  return { schema: b.value.schema, typeRef: b.value.kinds.get(gvk)! };
}

describeShared('OpenAPI v3 conversion agrees with the built-in table (conformance/map/k8s-schema/openapi-v3)', () => {
  it('core/v1 Pod: same list types, map keys and map/struct atomicity everywhere', () => {
    const pod = convertedKind('api__v1_openapi.json', '', 'v1', 'Pod');
    expect(shapeDifferences(pod, builtinKind('/v1/Pod'))).toStrictEqual([]);
    // Spot checks of what the walk compares.
    const spec = pod.schema.resolve(pod.schema.resolve(pod.typeRef)!.map!.fieldIndex.get('spec')!.type)!.map!;
    expect(pod.schema.resolve(spec.fieldIndex.get('containers')!.type)!.list).toMatchObject({ elementRelationship: 'associative', keys: ['name'] });
    expect(pod.schema.resolve(spec.fieldIndex.get('tolerations')!.type)!.list).toMatchObject({ elementRelationship: 'atomic', keys: [] });
    expect(pod.schema.resolve(spec.fieldIndex.get('nodeSelector')!.type)!.map!.elementRelationship).toBe('atomic');
  });

  it('notices a difference (the comparison is not vacuous)', () => {
    const pod = convertedKind('api__v1_openapi.json', '', 'v1', 'Pod', (doc) => {
      delete doc.components.schemas['io.k8s.api.core.v1.PodSpec'].properties.containers['x-kubernetes-patch-strategy'];
    });
    expect(shapeDifferences(pod, builtinKind('/v1/Pod'))).toStrictEqual(['.spec.containers: list atomic[] vs associative[name]']);
  });

  it('apps/v1 Deployment and batch/v1 Job: the same', () => {
    expect(shapeDifferences(convertedKind('apis__apps__v1_openapi.json', 'apps', 'v1', 'Deployment'), builtinKind('apps/v1/Deployment'))).toStrictEqual([]);
    expect(shapeDifferences(convertedKind('apis__batch__v1_openapi.json', 'batch', 'v1', 'Job'), builtinKind('batch/v1/Job'))).toStrictEqual([]);
  });
});
