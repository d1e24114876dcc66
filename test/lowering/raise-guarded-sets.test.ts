import { describe, expect, it } from 'vitest';
import { RAISE_MAP } from '../../src/lowering/index.js';
import type { Policy } from '../../src/ir/nodes.js';
import { mapPolicy, shown } from './map-policy.js';

const raiseAll = (p: Policy): string => shown(RAISE_MAP.reduce((ps, r) => r(ps), [p])[0]!);

describe('raiseGuardedSets (after the other MAP raisings)', () => {
  it('folds a matchCondition on the one written field into a MustNotExist test', () => {
    const p = mapPolicy({
      guards: ['!has(object.metadata.labels) || !("example.com/team" in object.metadata.labels)'],
      apply: 'Object{metadata: Object.metadata{labels: {"example.com/team": "platform"}}}',
    });
    expect(raiseAll(p)).toBe('rule "mutations[0]"\n    set object.metadata.labels."example.com/team"!absent = "platform"');
  });

  it('folds the conditional Object form the same way', () => {
    const p = mapPolicy({ apply: '!has(object.spec.securityContext) || !has(object.spec.securityContext.runAsNonRoot) ? Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: true}}} : Object{}' });
    expect(raiseAll(p)).toBe('rule "mutations[0]"\n    set object.spec.securityContext.runAsNonRoot!absent = true');
  });

  it('keeps a guard on another field, or one guarding several writes, as a guard', () => {
    const other = mapPolicy({ guards: ['!has(object.metadata.annotations)'], apply: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}' });
    expect(raiseAll(other)).toContain('guard notExists object.metadata.annotations');
    const two = mapPolicy({ guards: ['!has(object.spec.priorityClassName)'], apply: 'Object{spec: Object.spec{priorityClassName: "x", schedulerName: "y"}}' });
    expect(raiseAll(two)).toContain('guard notExists object.spec.priorityClassName');
  });
});
