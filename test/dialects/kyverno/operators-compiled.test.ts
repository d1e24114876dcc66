/**
 * compileOperator (a condition's operator applied to a value fixed at compile time) against the general
 * handler evaluateOperator, over every operator and a corpus of keys and values mixing every JSON type with
 * the texts the handlers parse specially: wildcards, quantities, durations, numbers, semvers, ranges and
 * JSON-encoded lists.
 */
import { describe, expect, it } from 'vitest';
import { compileOperator, evaluateOperator, OPERATORS } from '../../../src/dialects/kyverno/operators.js';

const TEXTS = [
  'backend',
  'Backend',
  'back*',
  '*end',
  '*',
  '?',
  'b?ckend',
  'ns-1*',
  'ns-12',
  'ns-1',
  '',
  'true',
  'false',
  '1',
  '1.0',
  '1.5',
  '-2',
  '+3',
  '1e3',
  'inf',
  'NaN',
  '500m',
  '0.5',
  '1Gi',
  '1024Mi',
  '1k',
  'Ki',
  '-',
  '5s',
  '1h',
  '300s',
  '.5s',
  '1.2.3',
  '1.10.0-rc.1',
  '1-5',
  '1!-5',
  '100Mi-2Gi',
  '["a","b"]',
  '["ns-12"]',
  '[bad',
  'a',
  'b',
];
const SCALARS: unknown[] = [...TEXTS, 0, 1, 1.5, -2, 3, 300, 1e21, 0.5, true, false, null];
const VALUES: unknown[] = [
  ...SCALARS,
  [],
  ['ns-1*'],
  ['a*', 'side'],
  ['backend', 'frontend'],
  [1, '2', true, null],
  ['*'],
  ['?s*', 'b'],
  [['a']],
  [{ a: 1 }],
  { a: 1 },
];
const KEYS: unknown[] = [...VALUES, undefined, ['backend'], ['ns-12', 'x'], [1, 2], { a: 1, b: [2] }];

describe('compileOperator against evaluateOperator', () => {
  it('agrees for every operator, value and key', () => {
    let compared = 0;
    for (const operator of [...OPERATORS, 'equals', 'anyin', 'greaterthan', 'Bogus', '']) {
      for (const value of VALUES) {
        const compiled = compileOperator(operator, value);
        for (const key of KEYS) {
          const want = evaluateOperator(operator, key, value);
          if (compiled(key) !== want) expect({ operator, key, value, got: compiled(key) }).toEqual({ operator, key, value, got: want });
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(50_000);
  });
});
