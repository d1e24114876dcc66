import { describe, expect, it } from 'vitest';
import { benchmarks, handWrittenMap, tenMutationPolicies } from '../../bench/map.js';
import { makePods } from '../../bench/pods.js';
import { apply } from '../../src/interpreter/index.js';
import { isJsonObject, type JsonObject } from '../../src/ir/json.js';

/** The MAP benchmark must measure the same work on both sides: the interpreter and the baseline agree. */
describe('bench/map: 10-mutation MutatingAdmissionPolicy', () => {
  const policies = tenMutationPolicies();
  const pods = makePods(150);

  it('parses into one policy of 10 rules (one per mutation) with one matchCondition guard', () => {
    expect(policies).toHaveLength(1);
    expect(policies[0]!.rules).toHaveLength(10);
    expect(policies[0]!.guards).toHaveLength(1);
  });

  it('gives the hand-written result for every Pod, allows it, and leaves the input untouched', () => {
    for (const pod of pods) {
      const before = JSON.stringify(pod);
      const r = apply(policies, { object: pod, operation: 'CREATE' }, { trace: false, patch: false });
      expect(r.diagnostics).toEqual([]);
      expect(r.allowed).toBe(true);
      expect(r.object).toEqual(handWrittenMap(pod));
      expect(JSON.stringify(pod)).toBe(before);
    }
  });

  it('skips the Pods the matchCondition excludes and mutates the others', () => {
    const excluded = pods.filter((p) => (p.metadata as JsonObject).namespace === 'ns-49');
    expect(excluded.length).toBeGreaterThan(0);
    for (const pod of excluded) expect(apply(policies, { object: pod, operation: 'CREATE' }).object).toBe(pod);
    const out = apply(policies, { object: pods[1]!, operation: 'CREATE' }).object;
    expect(isJsonObject(out) && isJsonObject(out.spec) && Array.isArray(out.spec.containers) ? out.spec.containers.map((c) => (c as JsonObject).name) : []).toEqual(['app', 'side-1', 'proxy']);
  });

  it('verifies through the harness hook as `npm run bench` does', async () => {
    const c = await benchmarks[0]!.setup();
    expect(c.items).toBe(10_000);
    expect(() => c.verify?.()).not.toThrow();
  });
});
