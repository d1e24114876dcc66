import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import type { JsonValue } from '../../../src/ir/json.js';
import { DEDUCED_SCHEMA, DEDUCED_TYPE_REF, UNTYPED_DEDUCED, loadSmdSchema, mergeTyped } from '../../../src/merge/ssa/index.js';
import { HAS_SHARED, describeShared, sharedPath } from '../../support/shared.js';
import { deepFreeze } from './support.js';

interface Triplet {
  lhs: JsonValue;
  rhs: JsonValue;
  out?: JsonValue;
  error?: string;
}
interface TripletCase {
  name: string;
  rootTypeName: string;
  schema: unknown;
  triplets: Triplet[];
}

const corpus: { cases: TripletCase[] } = HAS_SHARED
  ? JSON.parse(readFileSync(sharedPath('conformance/map/smd-merge/smd-merge-triplets.json'), 'utf8'))
  : { cases: [] };

describeShared('SMD merge triplets (structured-merge-diff typed/merge_test.go, deduced_test.go)', () => {
  it('has the 96 triplets', () => {
    expect(corpus.cases.reduce((n, c) => n + c.triplets.length, 0)).toBe(96);
  });

  for (const c of corpus.cases) {
    c.triplets.forEach((t, i) => {
      it(`${c.name} #${i}: ${JSON.stringify(t.lhs)} + ${JSON.stringify(t.rhs)}`, () => {
        const schema = loadSmdSchema(c.schema);
        expect(schema.ok).toBe(true);
        if (!schema.ok) return;
        // Frozen inputs: the merge must never write into lhs or rhs.
        const lhs = deepFreeze(structuredClone(t.lhs));
        const rhs = deepFreeze(structuredClone(t.rhs));
        const result = mergeTyped(schema.value, { namedType: c.rootTypeName }, lhs, rhs);
        if (t.error !== undefined) {
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.diagnostics[0]!.message).toContain(t.error);
          return;
        }
        expect(result.ok ? result.value : result.diagnostics).toStrictEqual(t.out);
        // The built-in deduced schema must agree with the one the triplet states.
        if (c.rootTypeName === UNTYPED_DEDUCED) {
          const deduced = mergeTyped(DEDUCED_SCHEMA, DEDUCED_TYPE_REF, lhs, rhs);
          expect(deduced.ok ? deduced.value : deduced.diagnostics).toStrictEqual(t.out);
        }
      });
    });
  }
});
