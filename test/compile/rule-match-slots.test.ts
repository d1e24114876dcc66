/**
 * Rule matches kept for one run of a policy (src/compile/stable-match.ts stableRuleMatchSlots, used by
 * generated runs in run-policy.ts) against the closure interpreter (`interpret: true`, the reference), which
 * tests every rule's match: every `apply` of sequential (Kyverno) policies made while running the golden set,
 * the Kyverno conformance corpus and the benchmark's Pods runs again untraced both ways, and both must give
 * the same object (key order included), verdict and diagnostics. Also which rules get a slot.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { thirtyRulePolicies } from '../../bench/kyverno.js';
import { makePods } from '../../bench/pods.js';
import { stableRuleMatchSlots } from '../../src/compile/stable-match.js';
import type * as Interpreter from '../../src/interpreter/index.js';
import type { JsonValue } from '../../src/ir/json.js';
import type { MatchSpec } from '../../src/ir/match.js';
import type { Op, Origin, Policy, Rule } from '../../src/ir/nodes.js';
import { report } from '../support/run-differential.js';
import { REPO_ROOT, describeShared, sharedPath } from '../support/shared.js';

const seen = vi.hoisted(() => ({ applies: 0, divergences: [] as { where: string; what: string }[] }));

vi.mock('../../src/interpreter/index.js', async (importOriginal) => {
  const real = await importOriginal<typeof Interpreter>();
  // Imported here: a mock factory runs before the file's own imports.
  const { differences } = await import('../support/run-differential.js');
  const apply: typeof real.apply = (policies, request, opts = {}) => {
    if (policies.some((p) => p.semantics.order === 'sequential' && p.rules.length > 1)) {
      const compiled = real.apply(policies, request, { ...opts, trace: false, interpret: false });
      const interpreted = real.apply(policies, request, { ...opts, trace: false, interpret: true });
      seen.applies++;
      const where = policies.map((p) => p.id).join(', ');
      for (const what of differences(compiled, interpreted)) seen.divergences.push({ where, what });
    }
    return real.apply(policies, request, opts);
  };
  return { ...real, apply };
});


const origin: Origin = { file: 'test.yaml', line: 1, col: 1, endLine: 1, endCol: 1, dialect: 'kyverno' };
const PODS: MatchSpec = { any: [{ kinds: [{ group: '*', version: '*', kind: 'Pod', subresource: '' }] }], globs: 'wildcard' };
const LABELLED: MatchSpec = { any: [{ labelSelector: { matchLabels: { tier: 'web' } } }], globs: 'wildcard' } as MatchSpec;

function smpRule(name: string, pattern: JsonValue, match: MatchSpec = PODS): Rule {
  const body: Op[] = [{ kind: 'merge', path: { root: 'object', segments: [] }, value: { kind: 'literal', json: pattern, origin }, strategy: 'smp', origin }];
  return { name, match, guards: [], body, origin } as Rule;
}

function policy(rules: Rule[]): Policy {
  return { id: 'p', match: { globs: 'wildcard' }, guards: [], rules, semantics: { order: 'sequential', failurePolicy: 'fail' }, origin } as Policy;
}

describe('stableRuleMatchSlots', () => {
  it('shares one slot between the equal matches of the benchmark policy', () => {
    expect(stableRuleMatchSlots(thirtyRulePolicies()[0]!)).toEqual(new Array(30).fill(0));
  });

  it('gives no slot where a rule writes what a match reads, or where a write cannot be told', () => {
    const labels = smpRule('labels', { metadata: { labels: { '+(tier)': 'web' } } });
    expect(stableRuleMatchSlots(policy([labels, smpRule('sel', {}, LABELLED)]))).toEqual([0, -1]);
    expect(stableRuleMatchSlots(policy([smpRule('a', { spec: { x: 1 } }), smpRule('sel', {}, LABELLED)]))).toEqual([0, 1]);
    // A directive may replace the map holding it; a removed top-level key may empty the object.
    expect(stableRuleMatchSlots(policy([smpRule('a', { metadata: { $patch: 'replace', labels: {} } }), smpRule('b', {})]))).toEqual([-1, -1]);
    expect(stableRuleMatchSlots(policy([smpRule('a', { spec: null }), smpRule('b', {})]))).toEqual([-1, -1]);
    expect(stableRuleMatchSlots(policy([smpRule('a', { metadata: { '+(name)': 'x' } }), smpRule('b', {})]))).toEqual([-1, -1]);
    const patch = { ...smpRule('a', {}), body: [{ kind: 'jsonPatch', steps: [], profile: 'kyverno', origin } as Op] };
    expect(stableRuleMatchSlots(policy([patch, smpRule('b', {})]))).toEqual([-1, -1]);
  });
});

describe('kept rule matches agree with the closure interpreter', () => {
  afterAll(() => {
    expect(seen.applies).toBeGreaterThan(0);
  });

  it('on the benchmark Pods, and on objects a merge prunes to nothing', async () => {
    const { apply } = await import('../../src/interpreter/index.js');
    const set = thirtyRulePolicies();
    seen.divergences.length = 0;
    for (const object of makePods(300)) apply(set, { object, operation: 'CREATE' });
    // An object of nulls only: a merge prunes it empty, and an empty object is matched as its old object.
    const nulls = policy([smpRule('a', { '(kind)': 'Pod' }), smpRule('b', { metadata: { labels: { b: 'x' } } })]);
    apply([nulls], { object: { spec: null }, oldObject: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }, operation: 'UPDATE' });
    expect(seen.divergences, report(seen.divergences)).toEqual([]);
  });

  it('on every golden case', async () => {
    const { listCases } = await import('../../src/golden/case.js');
    const { runCaseDir } = await import('../../src/golden/run.js');
    for (const dir of listCases(join(REPO_ROOT, 'golden', 'cases'))) {
      seen.divergences.length = 0;
      runCaseDir(dir, {});
      expect(seen.divergences, `${dir}\n${report(seen.divergences)}`).toEqual([]);
    }
  }, 300_000);

  describeShared('on every case of the Kyverno corpus', () => {
    it('kyverno', async () => {
      await import('../../src/conformance/plugins/kyverno.js');
      const { runConformance } = await import('../../src/conformance/run.js');
      const before = seen.applies;
      seen.divergences.length = 0;
      const run = await runConformance([sharedPath('conformance', 'kyverno')]);
      expect(run.outcomes.length).toBeGreaterThan(50);
      expect(seen.divergences, report(seen.divergences)).toEqual([]);
      expect(seen.applies - before).toBeGreaterThan(20);
    }, 600_000);
  });
});
