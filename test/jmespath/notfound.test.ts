/**
 * Kyverno's fork of go-jmespath: a missing map key is an error (`Unknown key "x" in path`), swallowed
 * by `||`, comparisons, function arguments, filters, projections, flatten, pipes and multiselects
 * (reference kyverno.md 1.6 item 8; kyverno pkg/engine/jmespath/interpreter.go).
 */
import { describe, expect, it } from 'vitest';
import { expectError, value } from './helpers.js';

const obj = { metadata: { name: 'pod', labels: { app: 'web' } }, spec: { containers: [{ name: 'c1', image: 'nginx' }, { name: 'c2' }] } };

describe('NotFound errors', () => {
  const errors: [string, string][] = [
    ['missing', 'missing'],
    ['metadata.namespace', 'namespace'],
    ['metadata.annotations.foo', 'annotations'],
    ['spec.containers[0].resources', 'resources'],
    ['`true` && metadata.missing', 'missing'],
  ];
  for (const [expr, key] of errors) {
    it(`${expr} → Unknown key "${key}"`, () => {
      expect(expectError(expr, obj)).toEqual({ kind: 'NotFound', message: `Unknown key "${key}" in path` });
    });
  }

  it('is not raised for a field of null, a string or an array', () => {
    expect(value('metadata.labels.app.x', obj)).toBe(null);
    expect(value('spec.containers.name', obj)).toBe(null);
    expect(value('spec.missing', { spec: null })).toBe(null);
  });
});

describe('places that swallow NotFound', () => {
  const cases: [string, unknown][] = [
    ["metadata.namespace || 'default'", 'default'],
    ["metadata.annotations.foo || 'none'", 'none'],
    ['metadata.namespace == `null`', true],
    ["metadata.namespace != 'x'", true],
    ['length(metadata.annotations || `{}`)', 0],
    ['not_null(metadata.namespace, metadata.name)', 'pod'],
    ['to_string(metadata.namespace)', 'null'],
    ["spec.containers[?image == 'nginx'].name", ['c1']],
    ['spec.containers[?resources.limits].name', []],
    ['spec.containers[*].image', ['nginx']],
    ['spec.containers[].image', ['nginx']],
    ['spec.initContainers[]', null],
    ['spec.initContainers[*].name', null],
    ['metadata.missing | @', null],
    ['metadata | missing', null],
    ['[metadata.name, metadata.namespace]', ['pod', null]],
    ['{n: metadata.name, ns: metadata.namespace}', { n: 'pod', ns: null }],
    ['!(metadata.namespace)', true],
    // `!` binds tighter than `.` in both parsers: this is (!metadata).namespace.
    ['!metadata.namespace', null],
    ['missing.*', null],
    ['metadata.missing && `true`', null],
    ['map(&image, spec.containers)', ['nginx', null]],
  ];
  for (const [expr, expected] of cases) {
    it(expr, () => {
      expect(value(expr, obj)).toEqual(expected);
    });
  }
});
