/**
 * Differential test of the merge's fast list shapes (merge.ts simpleListItems: the same keys in the same
 * order, or no key in common) against the general list walk, over the SMD merge triplets, the benchmark's
 * Pods merged with container lists in every arrangement, and the objects of the MAP conformance corpus
 * merged with each other.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { makePods } from '../../../bench/pods.js';
import { kindSchema } from '../../../src/engines/ssa.js';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import { gvkOf } from '../../../src/k8s/resources.js';
import { loadSmdSchema, mergeValidated, type Schema, type TypeRef } from '../../../src/merge/ssa/index.js';
import { mergeValidatedByGeneralWalk } from '../../../src/merge/ssa/merge.js';
import { describeShared, sharedPath } from '../../support/shared.js';

function expectSameMerge(name: string, schema: Schema, tr: TypeRef, lhs: JsonValue, rhs: JsonValue): void {
  const fast = mergeValidated(schema, tr, lhs, rhs);
  const general = mergeValidatedByGeneralWalk(schema, tr, lhs, rhs);
  expect(fast, name).toStrictEqual(general);
  // Same sharing too: a result that is lhs (or rhs) for one is for the other.
  expect(fast.value === lhs, `${name}: identity of lhs`).toBe(general.value === lhs);
  expect(fast.value === rhs, `${name}: identity of rhs`).toBe(general.value === rhs);
}

const container = (name: string, extra: JsonObject = {}): JsonObject => ({ name, ...extra });

describe('simple list shapes agree with the general list walk', () => {
  it('agrees on Pods merged with container lists in every arrangement', () => {
    const pod = kindSchema({ group: '', version: 'v1', kind: 'Pod' })!;
    const patches: JsonValue[][] = [
      [container('app', { imagePullPolicy: 'IfNotPresent' })],
      [container('app', { imagePullPolicy: 'IfNotPresent' }), container('side-1', { image: 'x' })],
      [container('side-1'), container('app')],
      [container('side-2'), container('side-1'), container('app')],
      [container('proxy', { image: 'p', ports: [{ containerPort: 15001, protocol: 'TCP' }] })],
      [container('proxy'), container('app')],
      [container('app'), container('proxy'), container('side-1')],
      [container('a'), container('b'), container('c'), container('d')],
      [],
    ];
    for (const [i, p] of makePods(12).entries()) {
      const spec = p.spec as JsonObject;
      const lhsVariants: JsonValue[] = [p, { ...p, spec: { ...spec, containers: [...(spec.containers as JsonValue[]), (spec.containers as JsonValue[])[0]!] } }];
      for (const [j, lhs] of lhsVariants.entries()) {
        for (const [k, containers] of patches.entries()) {
          expectSameMerge(`pod ${i} lhs ${j} patch ${k}`, pod.schema, pod.typeRef, lhs, { spec: { containers } });
          expectSameMerge(`pod ${i} lhs ${j} patch ${k} ports`, pod.schema, pod.typeRef, lhs, { spec: { containers: containers.map((c) => ({ ...(c as JsonObject), ports: [{ containerPort: 8000, protocol: 'TCP' }, { containerPort: 15001, protocol: 'UDP' }] })) } });
        }
      }
    }
  });
});

describeShared('simple list shapes agree with the general list walk on the MAP conformance corpus', () => {
  it('agrees on every SMD merge triplet, both ways round', () => {
    const corpus = JSON.parse(readFileSync(sharedPath('conformance/map/smd-merge/smd-merge-triplets.json'), 'utf8')) as {
      cases: { name: string; rootTypeName: string; schema: unknown; triplets: { lhs: JsonValue; rhs: JsonValue }[] }[];
    };
    let n = 0;
    for (const c of corpus.cases) {
      const schema = loadSmdSchema(c.schema);
      if (!schema.ok) throw new Error(`${c.name}: schema does not load`);
      c.triplets.forEach((t, i) => {
        const tr = { namedType: c.rootTypeName };
        expectSameMerge(`${c.name} #${i}`, schema.value, tr, t.lhs, t.rhs);
        expectSameMerge(`${c.name} #${i} swapped`, schema.value, tr, t.rhs, t.lhs);
        n++;
      });
    }
    expect(n).toBe(96);
  });

  it('agrees on the objects of each MAP case merged into each other', () => {
    const root = sharedPath('conformance/map');
    let n = 0;
    for (const source of readdirSync(root, { withFileTypes: true })) {
      if (!source.isDirectory() || source.name === 'k8s-schema' || source.name === 'smd-merge') continue;
      for (const c of readdirSync(join(root, source.name), { withFileTypes: true })) {
        if (!c.isDirectory()) continue;
        const dir = join(root, source.name, c.name);
        const objects = readdirSync(dir)
          .filter((f) => f.endsWith('.yaml'))
          .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as JsonValue))
          .filter((v): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v));
        for (const lhs of objects) {
          const known = kindSchema(gvkOf(lhs));
          if (!known) continue;
          for (const rhs of objects) {
            if (gvkOf(rhs).kind !== gvkOf(lhs).kind) continue;
            expectSameMerge(`${source.name}/${c.name}`, known.schema, known.typeRef, lhs, rhs);
            n++;
          }
        }
      }
    }
    expect(n).toBeGreaterThan(50);
  });
});
