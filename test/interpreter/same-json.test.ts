import { describe, expect, it } from 'vitest';
import { jsonEqual } from '../../src/ir/json.js';
import { sameJson } from '../../src/interpreter/same-json.js';

describe('sameJson agrees with jsonEqual', () => {
  const proto = JSON.parse('{"__proto__": 1}');
  const shared = { x: [1, { y: null }] };
  const values: unknown[] = [
    null, 0, 1, -0, '', '1', true, false, [], [1], [1, 2], [2, 1], {}, { a: 1 }, { a: 1, b: 2 }, { b: 2, a: 1 }, { a: 2 },
    { a: { b: [1, 2] } }, { a: { b: [1, 3] } }, { a: undefined }, { b: undefined }, proto, { ['__proto__']: 1 }, { constructor: 1 }, {constructor: 2},
    { s: shared }, { s: { x: [1, { y: null }] } }, { s: { x: [1, { y: 0 }] } }, [null], [{}], [[]],
  ];
  it('on every pair of a mixed set', () => {
    for (const a of values) for (const b of values) expect(sameJson(a, b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(jsonEqual(a, b));
  });
});
