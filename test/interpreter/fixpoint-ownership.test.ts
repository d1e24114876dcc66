import { describe, expect, it } from 'vitest';
import { apply } from '../../src/interpreter/index.js';
import type { JsonObject } from '../../src/ir/json.js';
import type { Policy } from '../../src/ir/nodes.js';
import { deepFreeze, p, policy, set } from './support.js';

// Fix-point passes let the policies of a pass write in place into what earlier policies of the pass created
// (runPolicy keepOwned). Traced runs still snapshot per policy, rule and op, so they are the reference here.

const fixpoint = { order: 'fixpoint' } as const;

function policies(): Policy[] {
  const seesLabel = policy('sees-label', [set(p('object', 'spec', 'y'), 'seen')], fixpoint);
  seesLabel.match = { globs: 'wildcard', any: [{ labelSelector: { matchLabels: { z: 'z' } } }] };
  return [
    policy('copies-root', [set(p('object', 'spec', 'x'), 1)], fixpoint),
    // Writes into the root the previous policy created: the root keeps its identity.
    policy('adds-label', [set(p('object', 'metadata', 'labels', 'z'), 'z')], fixpoint),
    // Must see the label written in place just before it, in the same pass.
    seesLabel,
    // Writes, then fails (spec.x is a number): the rule's changes are rolled back.
    policy('ignored', [set(p('object', 'metadata', 'labels', 'd'), 'd'), set(p('object', 'spec', 'x', 'deep'), 'v')], {
      order: 'fixpoint',
      failurePolicy: 'ignore',
    }),
    policy('after-ignored', [set(p('object', 'metadata', 'labels', 'e'), 'e')], fixpoint),
  ];
}

const pod = (): JsonObject => deepFreeze({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: {} });

describe('fix-point passes sharing ownership', () => {
  it('matches on what an earlier policy of the pass wrote in place, and rolls back an ignored failure', () => {
    const set1 = policies();
    const object = pod();
    const fast = apply(set1, { object, operation: 'CREATE' }, { trace: false });
    const traced = apply(policies(), { object: pod(), operation: 'CREATE' }, { trace: true });
    expect(fast.allowed).toBe(true);
    expect(fast.object).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', labels: { z: 'z', e: 'e' } },
      spec: { x: 1, y: 'seen' },
    });
    expect(fast.object).toEqual(traced.object);
    expect(fast.diagnostics.map((d) => d.code)).toEqual(traced.diagnostics.map((d) => d.code));
    expect(fast.diagnostics.some((d) => d.code === 'TM3009')).toBe(true);
    expect(object).toEqual(pod());
    // Same policy array again: the cached plan gives the same result.
    expect(apply(set1, { object: pod(), operation: 'CREATE' }, { trace: false }).object).toEqual(fast.object);
  });
});
