/**
 * A set whose value is read from the documents may store a container its own walk goes through: the value
 * is read before the walk (ops/set.ts), which then copies what earlier writes of the evaluation created
 * instead of writing into it, so no container ends up inside itself. Found by the apply fuzz property
 * (seed 20261128): `set annotations.y` to `ref object` after `set labels.x`, untraced.
 */
import { describe, expect, it } from 'vitest';
import { apply } from '../../src/interpreter/index.js';
import type { JsonObject } from '../../src/ir/json.js';
import type { Policy } from '../../src/ir/nodes.js';
import { policiesOf } from '../support/policies.js';
import { deepFreeze } from './support.js';

function irPolicy(body: string): Policy[] {
  const text = `apiVersion: transmute.dev/v1alpha1
kind: Policy
metadata:
  name: aliasing
spec:
  semantics:
    order: sequential
  rules:
  - name: r
    body:
${body.replace(/^/gm, '    ')}`;
  return policiesOf('aliasing.yaml', text);
}

const POD = (): JsonObject => deepFreeze({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', labels: { app: 'web' }, annotations: { a: 'b' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });

describe('a set of a value read from the object, after earlier writes', () => {
  for (const interpret of [true, false]) {
    it(`stores the object as it was, not the object being written (${interpret ? 'closure interpreter' : 'generated'})`, () => {
      const policies = irPolicy(`- set: object.metadata.labels.x
  value: one
- set: object.metadata.annotations.y
  valueFrom:
    ref: object
- set: object.metadata.annotations.z
  valueFrom:
    ref: object.metadata`);
      const untraced = apply(policies, { object: POD(), operation: 'CREATE' }, { interpret, trace: false });
      const traced = apply(policies, { object: POD(), operation: 'CREATE' }, { interpret });
      expect(untraced.diagnostics).toEqual([]);
      const metadata = (untraced.object as JsonObject).metadata as JsonObject;
      expect((metadata.annotations as JsonObject).z).not.toBe(metadata);
      // Finite: it prints, and equals what the traced run (a snapshot per op) gives.
      expect(JSON.parse(JSON.stringify(untraced.object))).toEqual(traced.object);
      expect(untraced.object).toMatchObject({ metadata: { labels: { x: 'one' }, annotations: { y: { metadata: { labels: { app: 'web', x: 'one' }, annotations: { a: 'b' } } } } } });
      expect(untraced.patch.length).toBeGreaterThan(0);
    });
  }

  it('fails for a value that cannot be read only when the set reaches a place', () => {
    const policies = irPolicy(`- set: object.metadata.labels.x
  value: one
- set: object.spec.volumes[*].name
  valueFrom:
    ref: object.metadata.missing`);
    const r = apply(policies, { object: POD(), operation: 'CREATE' }, { trace: false });
    expect(r.allowed).toBe(true);
    expect(r.object).toMatchObject({ metadata: { labels: { x: 'one' } } });
    const reached = apply(irPolicy(`- set: object.spec.containers[*].name\n  valueFrom:\n    ref: object.metadata.missing`), { object: POD(), operation: 'CREATE' }, { trace: false });
    expect(reached.allowed).toBe(false);
    expect(reached.diagnostics.map((d) => d.message).join('\n')).toContain('the referenced path does not exist');
  });
});
