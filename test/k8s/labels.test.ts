import { describe, expect, it } from 'vitest';
import type { LabelSelector } from '../../src/ir/match.js';
import {
  compileLabelSelector,
  labelKeyProblem,
  labelsOf,
  labelValue,
  labelValueProblem,
  validateLabelSelector,
} from '../../src/k8s/labels.js';

const sel = (s: LabelSelector | null | undefined, labels: Record<string, string>, wildcard = false): boolean => {
  const { selector, diagnostics } = compileLabelSelector(s, { wildcardMatchLabels: wildcard });
  expect(diagnostics).toEqual([]);
  return selector.matches(labels);
};

describe('label selectors (apimachinery LabelSelectorAsSelector)', () => {
  it('an empty selector selects everything, a null one nothing', () => {
    expect(sel({}, {})).toBe(true);
    expect(sel({ matchLabels: {}, matchExpressions: [] }, { a: 'b' })).toBe(true);
    expect(compileLabelSelector({}).selector.selectsAll).toBe(true);
    expect(sel(null, {})).toBe(false);
    expect(sel(undefined, { a: 'b' })).toBe(false);
  });

  it('matchLabels requires every pair', () => {
    expect(sel({ matchLabels: { app: 'web', tier: 'fe' } }, { app: 'web', tier: 'fe', x: 'y' })).toBe(true);
    expect(sel({ matchLabels: { app: 'web', tier: 'fe' } }, { app: 'web' })).toBe(false);
    expect(sel({ matchLabels: { app: '' } }, { app: '' })).toBe(true);
    expect(sel({ matchLabels: { app: '' } }, {})).toBe(false);
  });

  it('In, NotIn, Exists, DoesNotExist', () => {
    const In: LabelSelector = { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'stage'] }] };
    expect(sel(In, { env: 'prod' })).toBe(true);
    expect(sel(In, { env: 'dev' })).toBe(false);
    expect(sel(In, {})).toBe(false);
    const NotIn: LabelSelector = { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] };
    expect(sel(NotIn, { env: 'dev' })).toBe(true);
    expect(sel(NotIn, {})).toBe(true); // absent label satisfies NotIn
    expect(sel(NotIn, { env: 'prod' })).toBe(false);
    const Exists: LabelSelector = { matchExpressions: [{ key: 'env', operator: 'Exists' }] };
    expect(sel(Exists, { env: '' })).toBe(true);
    expect(sel(Exists, {})).toBe(false);
    const Missing: LabelSelector = { matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] };
    expect(sel(Missing, {})).toBe(true);
    expect(sel(Missing, { env: 'x' })).toBe(false);
  });

  it('matchLabels and matchExpressions are ANDed', () => {
    const s: LabelSelector = {
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }],
    };
    expect(sel(s, { app: 'web', env: 'prod' })).toBe(true);
    expect(sel(s, { app: 'web', env: 'dev' })).toBe(false);
    expect(sel(s, { app: 'api', env: 'prod' })).toBe(false);
  });

  it('treats __proto__ and constructor as ordinary label keys', () => {
    const labels = JSON.parse('{"__proto__": "x"}') as Record<string, string>;
    expect(labelValue(labels, '__proto__')).toBe('x');
    expect(labelValue({}, 'constructor')).toBeUndefined();
    expect(sel({ matchExpressions: [{ key: 'constructor', operator: 'Exists' }] }, {})).toBe(false);
    expect(sel({ matchExpressions: [{ key: 'constructor', operator: 'DoesNotExist' }] }, {})).toBe(true);
  });

  it('Kyverno wildcard matchLabels hold when one label matches key and value patterns', () => {
    expect(sel({ matchLabels: { 'app.kubernetes.io/*': 'web*' } }, { 'app.kubernetes.io/name': 'web-1' }, true)).toBe(true);
    expect(sel({ matchLabels: { 'app.kubernetes.io/*': 'web*' } }, { 'app.kubernetes.io/name': 'api', x: 'web' }, true)).toBe(false);
    expect(sel({ matchLabels: { app: '?' } }, { app: 'a' }, true)).toBe(true);
    expect(sel({ matchLabels: { app: '?' } }, { app: 'ab' }, true)).toBe(false);
    expect(sel({ matchLabels: { '*': '*' } }, {}, true)).toBe(false);
    expect(sel({ matchLabels: { '*': '*' } }, { any: 'thing' }, true)).toBe(true);
    // Without the Kyverno option `*` is rejected as a label value.
    expect(compileLabelSelector({ matchLabels: { app: 'web*' } }).diagnostics).toHaveLength(1);
  });

  it('reads metadata.labels without copying, tolerating absent metadata', () => {
    const obj = { metadata: { labels: { a: 'b' } } };
    expect(labelsOf(obj)).toBe(obj.metadata.labels);
    expect(labelsOf(null)).toEqual({});
    expect(labelsOf({ metadata: 'x' })).toEqual({});
  });
});

describe('selector validation', () => {
  const codes = (s: LabelSelector): string[] => validateLabelSelector(s, { field: 'match.labelSelector' }).map((d) => d.message);

  it('rejects an unknown operator', () => {
    const msgs = codes({ matchExpressions: [{ key: 'a', operator: 'Equals' as never, values: ['x'] }] });
    expect(msgs).toEqual(['match.labelSelector: matchExpressions[0]: "Equals" is not a valid label selector operator']);
  });

  it('requires values for In and NotIn and forbids them for Exists and DoesNotExist', () => {
    expect(codes({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })[0]).toMatch(/values set can't be empty/);
    expect(codes({ matchExpressions: [{ key: 'a', operator: 'NotIn' }] })[0]).toMatch(/values set can't be empty/);
    expect(codes({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] })[0]).toMatch(/must be empty/);
    expect(codes({ matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }] })[0]).toMatch(/must be empty/);
  });

  it('checks keys and values', () => {
    expect(labelKeyProblem('app')).toBeUndefined();
    expect(labelKeyProblem('app.kubernetes.io/name')).toBeUndefined();
    expect(labelKeyProblem('a_b.c-d')).toBeUndefined();
    expect(labelKeyProblem('')).toBeDefined();
    expect(labelKeyProblem('/name')).toBeDefined();
    expect(labelKeyProblem('Example.com/name')).toBeDefined();
    expect(labelKeyProblem('-app')).toBeDefined();
    expect(labelKeyProblem('x'.repeat(64))).toBeDefined();
    expect(labelKeyProblem('x'.repeat(63))).toBeUndefined();
    expect(labelKeyProblem(`${'a'.repeat(254)}/x`)).toBeDefined();
    expect(labelValueProblem('')).toBeUndefined();
    expect(labelValueProblem('v1.2_3-x')).toBeUndefined();
    expect(labelValueProblem('has space')).toBeDefined();
    expect(labelValueProblem('end-')).toBeDefined();
    expect(codes({ matchLabels: { 'bad key': 'v' } })).toHaveLength(1);
    expect(codes({ matchExpressions: [{ key: 'a', operator: 'In', values: ['ok', 'not ok'] }] })).toHaveLength(1);
  });

  it('reports TM2002 with the given span, and an invalid selector selects nothing', () => {
    const span = { file: 'p.yaml', line: 3, col: 5, endLine: 3, endCol: 9 };
    const { selector, diagnostics } = compileLabelSelector(
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      { span },
    );
    expect(diagnostics.map((d) => [d.code, d.severity, d.span])).toEqual([['TM2002', 'error', span]]);
    expect(selector.matches({})).toBe(false);
  });
});
