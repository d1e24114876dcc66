import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/ir/json.js';
import { CheckedSubtrees, loadSmdSchema, mergeTyped, validateTyped, type Schema, type TypeRef } from '../../../src/merge/ssa/index.js';
import { mergeIntoValidatedPatch } from '../../../src/merge/ssa/merge.js';
import { makePods } from '../../../bench/pods.js';
import { HAS_SHARED, describeShared, sharedPath } from '../../support/shared.js';
import { builtinSchema, deepFreeze } from './support.js';

/** A memo that also lists what it was told is valid. */
class RecordingMemo extends CheckedSubtrees {
  readonly marked: [TypeRef, object][] = [];
  override markValid(tr: TypeRef, v: object): void {
    this.marked.push([tr, v]);
    super.markValid(tr, v);
  }
  override noteValidDocument(tr: TypeRef, v: JsonValue): void {
    if (v !== null && typeof v === 'object') this.marked.push([tr, v]);
    super.noteValidDocument(tr, v);
  }
}

/**
 * merge.ts records the result of a merge (and the typing of lhs the containers it walked) as valid
 * (duplicates allowed), so that later steps of an evaluation skip typing them or walk only what differs from
 * them: each must type without errors on its own, and the merge result must not depend on the memo.
 */
function checkMergeRecordsOnlyValid(schema: Schema, tr: TypeRef, lhs: JsonValue, rhs: JsonValue): number {
  if (validateTyped(schema, tr, rhs).length > 0 || validateTyped(schema, tr, lhs, { allowDuplicates: true }).length > 0) return 0;
  const memo = new RecordingMemo(schema);
  const r = mergeIntoValidatedPatch(schema, tr, deepFreeze(lhs), deepFreeze(rhs), memo);
  const plain = mergeTyped(schema, tr, lhs, rhs);
  expect(r.ok ? r.value : r.diagnostics.map((d) => d.message)).toStrictEqual(plain.ok ? plain.value : plain.diagnostics.map((d) => d.message));
  if (!r.ok) return 0;
  for (const [t, v] of memo.marked) expect(validateTyped(schema, t, v as JsonValue, { allowDuplicates: true })).toStrictEqual([]);
  return memo.marked.length;
}

const schema = (() => {
  const r = loadSmdSchema({
    types: [
      {
        name: 'root',
        map: {
          fields: [
            { name: 'list', type: { list: { elementType: { namedType: 'element' }, elementRelationship: 'associative', keys: ['key'] } } },
            { name: 'set', type: { list: { elementType: { scalar: 'string' }, elementRelationship: 'associative' } } },
            { name: 'numbers', type: { list: { elementType: { scalar: 'untyped' }, elementRelationship: 'associative' } } },
            { name: 'labels', type: { map: { elementType: { scalar: 'string' } } } },
            { name: 'atomic', type: { map: { elementType: { scalar: 'string' }, elementRelationship: 'atomic' } } },
            { name: 'nested', type: { namedType: 'root' } },
          ],
        },
      },
      {
        name: 'element',
        map: {
          fields: [
            { name: 'key', type: { scalar: 'untyped' } },
            { name: 'value', type: { scalar: 'string' } },
            { name: 'inner', type: { list: { elementType: { scalar: 'string' } } } },
            { name: 'sub', type: { namedType: 'root' } },
          ],
        },
      },
    ],
  });
  if (!r.ok) throw new Error(r.diagnostics[0]!.message);
  return r.value;
})();
const ROOT = { namedType: 'root' };

describe('merge results recorded as valid', () => {
  it('maps, keyed lists with duplicates in lhs, sets, atomic maps, nulls, nested types', () => {
    const cases: [JsonValue, JsonValue][] = [
      [{ labels: { a: 'x' }, list: [{ key: 'a', value: '1' }, { key: 'a', value: '2' }, { key: 'b' }] }, { list: [{ key: 'a', value: '3' }, { key: 'c' }], labels: { b: 'y' } }],
      [{ set: ['a', 'b'], atomic: { x: 'y' } }, { set: ['c', 'a'], atomic: { z: 'w' } }],
      [{ nested: { nested: { labels: { a: 'b' } } }, list: [{ key: 1, sub: { set: ['x'] } }] }, { nested: { nested: { labels: null } }, list: [{ key: 1, sub: { set: ['y'] } }] }],
      [{ labels: { a: 'x' } }, { labels: null, nested: null }],
      [{}, { list: [{ key: 'k', sub: { list: [{ key: 'j' }] } }] }],
      // An item whose merge fails (a list neither atomic nor associative) is left out, the rest stays valid.
      [{ list: [{ key: 'a', inner: ['x'] }, { key: 'b' }] }, { list: [{ key: 'a', inner: ['y'] }, { key: 'b', value: 'v' }] }],
    ];
    let marked = 0;
    for (const [lhs, rhs] of cases) marked += checkMergeRecordsOnlyValid(schema, ROOT, lhs, rhs);
    expect(marked).toBeGreaterThan(10);
  });

  describeShared('over the SMD merge triplets and MAP-shaped Pod patches', () => {
    it('SMD merge triplets', () => {
      if (!HAS_SHARED) return;
      const corpus: { cases: { rootTypeName: string; schema: unknown; triplets: { lhs: JsonValue; rhs: JsonValue }[] }[] } = JSON.parse(
        readFileSync(sharedPath('conformance/map/smd-merge/smd-merge-triplets.json'), 'utf8'),
      );
      let marked = 0;
      for (const c of corpus.cases) {
        const s = loadSmdSchema(c.schema);
        if (!s.ok) continue;
        for (const t of c.triplets) marked += checkMergeRecordsOnlyValid(s.value, { namedType: c.rootTypeName }, structuredClone(t.lhs), structuredClone(t.rhs));
      }
      expect(marked).toBeGreaterThan(50);
    });

    it('Pods of the MAP benchmark under ApplyConfigurations of its shapes', () => {
      const pod = { namedType: 'io.k8s.api.core.v1.Pod' };
      const patches: JsonValue[] = [
        { metadata: { labels: { 'managed-by': 'transmute' } } },
        { spec: { containers: [{ name: 'app', imagePullPolicy: 'IfNotPresent' }, { name: 'proxy', ports: [{ containerPort: 15001, protocol: 'TCP' }] }] } },
        { spec: { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }, tolerations: [{ key: 'k' }] } },
      ];
      for (const p of makePods(12)) {
        let live: JsonValue = p;
        for (const patch of patches) {
          checkMergeRecordsOnlyValid(builtinSchema(), pod, live, { apiVersion: 'v1', kind: 'Pod', ...(patch as object) });
          const r = mergeTyped(builtinSchema(), pod, live, { apiVersion: 'v1', kind: 'Pod', ...(patch as object) });
          if (r.ok) live = r.value;
        }
      }
    });
  });
});

describe('list item identities', () => {
  it('strings that read like canonical values are distinct items', () => {
    const r = mergeTyped(schema, ROOT, { set: ['"a"', 'a', '{}', '[]'] }, { set: ['a', '"a"', '{}', '[]', '"{}"'] });
    expect(r.ok ? r.value : r.diagnostics).toStrictEqual({ set: ['a', '"a"', '{}', '[]', '"{}"'] });
    expect(validateTyped(schema, ROOT, { set: ['"a"', 'a', '[1]', '"[1]"'] })).toStrictEqual([]);
    expect(validateTyped(schema, ROOT, { set: ['a', 'b', 'a'] }).map((e) => e.message)).toStrictEqual(['duplicate entries for key [="a"]']);
  });

  it('numbers and strings are distinct keys; equal numbers are one key', () => {
    expect(validateTyped(schema, ROOT, { numbers: [1, '1', true, 'true'] })).toStrictEqual([]);
    expect(validateTyped(schema, ROOT, { numbers: [1, 1.0] }).length).toBe(1);
    const r = mergeTyped(schema, ROOT, { list: [{ key: 1, value: 'n' }, { key: '1', value: 's' }, { key: '"1"', value: 'q' }] }, { list: [{ key: '1', value: 'S' }] });
    expect(r.ok ? r.value : r.diagnostics).toStrictEqual({ list: [{ key: 1, value: 'n' }, { key: '1', value: 'S' }, { key: '"1"', value: 'q' }] });
  });
});
