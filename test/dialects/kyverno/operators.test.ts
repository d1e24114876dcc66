import { describe, expect, it } from 'vitest';
import { evaluateOperator } from '../../../src/dialects/kyverno/operators.js';

describe('precondition operators (pkg/engine/variables/operator)', () => {
  it('Equals: wildcards in the value, durations, quantities, numbers from strings', () => {
    expect(evaluateOperator('Equals', 'nginx:1.2', 'nginx:*')).toBe(true);
    expect(evaluateOperator('equals', '1h', '60m')).toBe(true);
    expect(evaluateOperator('Equals', '1Gi', '1024Mi')).toBe(true);
    expect(evaluateOperator('Equals', 2, '2')).toBe(true);
    expect(evaluateOperator('Equals', { a: 1 }, { a: 1 })).toBe(true);
    expect(evaluateOperator('Equals', null, null)).toBe(false);
  });
  it('NotEquals: a nil key is never not-equal, a type mismatch is', () => {
    expect(evaluateOperator('NotEquals', null, 'x')).toBe(false);
    expect(evaluateOperator('NotEquals', { a: 1 }, '')).toBe(true);
    expect(evaluateOperator('NotEquals', 'abc', 'a*')).toBe(false);
  });
  it('AnyIn / AllIn / AnyNotIn / AllNotIn with two-way wildcards', () => {
    expect(evaluateOperator('AnyIn', ['a', 'b'], ['x', 'b*'])).toBe(true);
    expect(evaluateOperator('AllIn', ['a', 'b'], ['a', 'c'])).toBe(false);
    expect(evaluateOperator('AllIn', ['a*'], ['abc'])).toBe(true);
    expect(evaluateOperator('AnyNotIn', ['a', 'b'], ['a'])).toBe(true);
    expect(evaluateOperator('AllNotIn', ['a', 'b'], ['c'])).toBe(true);
    expect(evaluateOperator('AnyIn', 'CREATE', ['CREATE', 'UPDATE'])).toBe(true);
    expect(evaluateOperator('AnyIn', '5', '1-10')).toBe(true);
    expect(evaluateOperator('AnyIn', '15', '1-10')).toBe(false);
  });
  it('numeric comparisons: numbers, durations, quantities, semver', () => {
    expect(evaluateOperator('GreaterThan', 3, 2)).toBe(true);
    expect(evaluateOperator('GreaterThanOrEquals', '2h', '90m')).toBe(true);
    expect(evaluateOperator('LessThan', '500m', '1')).toBe(true);
    expect(evaluateOperator('LessThan', '1.2.3', '1.10.0')).toBe(true);
  });
  it('an unknown operator is false', () => {
    expect(evaluateOperator('Bogus', 1, 1)).toBe(false);
  });
});
