import { describe, expect, it } from 'vitest';
import { apply } from '../../src/interpreter/index.js';
import type { JsonObject } from '../../src/ir/json.js';
import { deepFreeze, exists, O, p, policy, remove, set, when } from './support.js';

const pod = (): JsonObject =>
  deepFreeze({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: { containers: [{ name: 'app', image: 'nginx' }], volumes: [{ name: 'v' }] },
  });

describe('apply', () => {
  it('never mutates its inputs and copies only what it changes', () => {
    const object = pod();
    const r = apply([policy('p', [set(p('object', 'metadata', 'labels', 'team'), 'x')])], { object, operation: 'CREATE' });
    expect(r.allowed).toBe(true);
    const out = r.object as JsonObject;
    expect((out.metadata as JsonObject).labels).toEqual({ app: 'web', team: 'x' });
    expect(out).not.toBe(object);
    expect(out.spec).toBe(object.spec); // untouched branch shared, not cloned
    expect(r.patch).toEqual([{ op: 'add', path: '/metadata/labels/team', value: 'x' }]);
  });

  it('returns the very input object when nothing changes', () => {
    const object = pod();
    const r = apply([policy('p', [set(p('object', 'metadata', 'name'), 'web')])], { object, operation: 'CREATE' });
    expect(r.object).toBe(object);
    expect(r.patch).toEqual([]);
  });

  it('treats __proto__ and constructor as ordinary keys', () => {
    const object = pod();
    const r = apply(
      [policy('p', [set(p('object', 'metadata', 'labels', '__proto__'), 'x'), set(p('object', 'constructor', 'prototype'), 'y')])],
      { object, operation: 'CREATE' },
    );
    const out = r.object as JsonObject;
    const labels = (out.metadata as JsonObject).labels as JsonObject;
    expect(Object.prototype.hasOwnProperty.call(labels, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
    expect(labels['__proto__' as string]).toBe('x');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(out, 'constructor')).toBe(true);
    expect(JSON.parse(JSON.stringify(out)).constructor).toEqual({ prototype: 'y' });
  });

  it('reports a shape mismatch as a denial with the op origin, never a throw', () => {
    const r = apply([policy('p', [set(p('object', 'spec', 'containers', 'name'), 'x')])], { object: pod(), operation: 'CREATE' });
    expect(r.allowed).toBe(false);
    expect(r.diagnostics[0]!.code).toBe('TM3001');
    expect(r.diagnostics[0]!.message).toContain('mismatch between path entry (type: object)');
    expect(r.diagnostics[0]!.span).toMatchObject({ file: O.file });
  });

  it('records a trace naming the guard that skipped an op', () => {
    const r = apply(
      [policy('p', [when(exists(p('object', 'metadata', 'labels', 'nope')), [remove(p('object', 'spec'))])], { order: 'sequential' }, [exists(p('object', 'spec', 'missing'))])],
      { object: pod(), operation: 'CREATE' },
    );
    expect(r.trace[0]).toMatchObject({ policy: 'p', node: 'policy', outcome: 'skipped' });
    expect(r.trace[0]!.reason).toContain('object.spec.missing');
  });

  it('bounds a fix-point that never converges and fails the request', () => {
    const toggle = policy(
      'toggle',
      [when(exists(p('object', 'metadata', 'labels', 'flip')), [remove(p('object', 'metadata', 'labels', 'flip'))], [set(p('object', 'metadata', 'labels', 'flip'), 'on')])],
      { order: 'fixpoint' },
    );
    const r = apply([toggle], { object: pod(), operation: 'CREATE' });
    expect(r.allowed).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({ code: 'TM3002' });
    expect(r.diagnostics[0]!.message).toContain('after 2 passes');
    expect(r.object).toEqual(pod());
  });

  it('matches a large set through the kind index without changing the outcome', () => {
    const policies = Array.from({ length: 50 }, (_, i) => ({
      ...policy(`p${i}`, [set(p('object', 'metadata', 'labels', `l${i}`), String(i))]),
      match: { globs: 'wildcard' as const, any: [{ kinds: [{ kind: i % 2 ? 'Pod' : 'Service' }] }] },
    }));
    const r = apply(policies, { object: pod(), operation: 'CREATE' });
    const labels = ((r.object as JsonObject).metadata as JsonObject).labels as JsonObject;
    expect(Object.keys(labels).length).toBe(26);
    expect(labels.l49).toBe('49');
    expect(labels.l48).toBeUndefined();
  });
});
