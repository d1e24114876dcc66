/**
 * Runs of literal strategic-merge rules (src/compile/smp-rule-runs.ts) against the closure interpreter
 * (`interpret: true`, the reference), which runs every rule through the merge op and the general merge: random
 * runs of Kyverno patterns (plain fields, `+()` and condition anchors, `null` deletions, lists, a `kind`
 * change, anchored keyed lists) over random Pods (in and out of kyaml's normal form: duplicate container
 * names, nulls, lists where maps belong), with rule matches that do and do not hold, and guards (path guards
 * and preconditions, some reading what rules before them write, some failing). Both must give the same
 * object, key order included, verdict and diagnostics. Also which rules form runs.
 */
import { describe, expect, it } from 'vitest';
import { smpRuleRuns } from '../../src/compile/smp-rule-runs.js';
import { GENERATED } from '../../src/compile/index.js';
import { compilePolicy } from '../../src/interpreter/compile.js';
import { apply } from '../../src/interpreter/index.js';
import type { JsonObject, JsonValue } from '../../src/ir/json.js';
import type { MatchSpec } from '../../src/ir/match.js';
import type { Guard, Op, Origin, Policy, Rule } from '../../src/ir/nodes.js';
import { exists, lit, p as path } from '../interpreter/support.js';
import { differences } from '../support/run-differential.js';
import { lcg as rng, pick } from '../support/random.js';

const origin: Origin = { file: 'test.yaml', line: 1, col: 1, endLine: 1, endCol: 1, dialect: 'kyverno' };
const PODS: MatchSpec = { any: [{ kinds: [{ group: '*', version: '*', kind: 'Pod', subresource: '' }] }], globs: 'wildcard' };
const DEPLOYMENTS: MatchSpec = { any: [{ kinds: [{ group: '*', version: '*', kind: 'Deployment', subresource: '' }] }], globs: 'wildcard' };
const TIER_WEB: MatchSpec = { any: [{ labelSelector: { matchLabels: { tier: 'web' } } }], globs: 'wildcard' } as MatchSpec;

function smpRule(name: string, pattern: JsonValue, match: MatchSpec | undefined = PODS, guards: Guard[] = []): Rule {
  const body: Op[] = [{ kind: 'merge', path: { root: 'object', segments: [] }, value: { kind: 'literal', json: pattern, origin }, strategy: 'smp', origin }];
  return { name, match, guards, body, origin } as Rule;
}

function policy(rules: Rule[], semantics: Partial<Policy['semantics']> = {}): Policy {
  return { id: 'p', match: { globs: 'wildcard' }, guards: [], rules, semantics: { order: 'sequential', failurePolicy: 'fail', ...semantics }, origin } as Policy;
}

const SCALARS: JsonValue[] = ['web', 'backend', 'x', '1', 1, true, false, '', 'true'];

function randomLeaf(r: () => number): JsonValue {
  const roll = r();
  if (roll < 0.1) return null;
  if (roll < 0.15) return ['a', 'b'];
  if (roll < 0.2) return { type: 'RuntimeDefault' };
  return pick(r, SCALARS);
}

/** A key of a pattern map, sometimes anchored: `+(k)`, `(k)` with a scalar, `<(k)` with a scalar. */
function anchored(r: () => number, key: string, value: JsonValue): [string, JsonValue] {
  const roll = r();
  if (roll < 0.25) return [`+(${key})`, value];
  if (roll < 0.35) return [`(${key})`, pick(r, SCALARS)];
  if (roll < 0.4) return [`<(${key})`, pick(r, SCALARS)];
  return [key, value];
}

function randomMap(r: () => number, keys: readonly string[], n: number): JsonObject {
  const out: JsonObject = {};
  for (let i = 0; i < n; i++) {
    const [k, v] = anchored(r, pick(r, keys), randomLeaf(r));
    out[k] = v;
  }
  return out;
}

function randomPattern(r: () => number): JsonValue {
  const roll = r();
  if (roll < 0.3) return { metadata: { labels: randomMap(r, ['tier', 'team', 'a', 'b'], 1 + Math.floor(r() * 2)) } };
  if (roll < 0.45) return { metadata: { annotations: randomMap(r, ['example.com/a', 'example.com/debug', 'b'], 1 + Math.floor(r() * 2)) } };
  if (roll < 0.6) return { spec: randomMap(r, ['restartPolicy', 'dnsPolicy', 'priorityClassName', 'nodeSelector', 'enableServiceLinks'], 1 + Math.floor(r() * 2)) };
  if (roll < 0.7) return { spec: { securityContext: { [r() < 0.5 ? '+(runAsNonRoot)' : 'runAsNonRoot']: true, '+(seccompProfile)': { type: 'RuntimeDefault' } } } };
  if (roll < 0.76) return { spec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: pick(r, ['apps', 'web']), effect: 'NoSchedule' }] } };
  if (roll < 0.82) return { spec: { containers: [{ '(name)': pick(r, ['app', 'side', '*']), imagePullPolicy: pick(r, ['Always', 'IfNotPresent']) }] } };
  if (roll < 0.86) return { kind: pick(r, ['Pod', 'Deployment']) };
  if (roll < 0.9) return { metadata: { labels: { tier: null } } };
  if (roll < 0.94) return { metadata: { labels: { '(tier)': 'web' } }, spec: { priorityClassName: 'web' } };
  return { spec: { nodeSelector: { '+(zone)': 'z9', disk: pick(r, ['ssd', null]) } } };
}

function randomPod(r: () => number): JsonObject {
  const containers: JsonValue[] = [];
  const n = Math.floor(r() * 3);
  for (let i = 0; i < n; i++) containers.push({ name: r() < 0.2 ? 'app' : pick(r, ['app', 'side', 'other']), image: `img:${i}`, ...(r() < 0.2 ? { resources: null } : {}) });
  const labels: JsonObject = {};
  if (r() < 0.6) labels.tier = pick(r, ['web', 'backend']);
  if (r() < 0.3) labels.team = 'preset';
  const metadata: JsonObject = { name: 'p', namespace: 'ns' };
  if (r() < 0.8) metadata.labels = r() < 0.05 ? null : labels;
  if (r() < 0.5) metadata.annotations = { 'example.com/debug': pick(r, ['true', 'false']) };
  const spec: JsonObject = { containers, restartPolicy: pick(r, ['Always', 'Never']) };
  if (r() < 0.5) spec.nodeSelector = r() < 0.1 ? ['odd'] : { zone: 'z1' };
  if (r() < 0.2) spec.tolerations = [{ key: 'dedicated', operator: 'Equal', value: 'apps', effect: 'NoSchedule' }];
  return { apiVersion: 'v1', kind: r() < 0.9 ? 'Pod' : 'Deployment', metadata, spec };
}

/** A Kyverno precondition `{key, operator, value}` as it lowers to a guard. */
function precondition(key: string, operator: string, value: JsonValue): Guard {
  const block = JSON.stringify({ all: [{ key, operator, value }] });
  return { kind: 'jmes', expr: { text: `kyverno_conditions(\`${block}\`)`, origin }, origin } as Guard;
}

/**
 * Guards reading what earlier rules of the run write (Kyverno preconditions lower to guards): path guards,
 * whose reads the runs do not know, and preconditions, which they test ahead of the rules before them in a
 * fused group when those do not write what they read; some fail (a missing label, `length` of no list).
 */
function randomGuards(r: () => number): Guard[] {
  const roll = r();
  if (roll < 0.5) return [];
  if (roll < 0.58) return [exists(path('object', 'metadata', 'labels', 'tier'))];
  if (roll < 0.64) return [{ kind: 'eq', path: path('object', 'spec', 'restartPolicy'), value: lit('Always'), origin } as Guard];
  if (roll < 0.7) return [precondition("{{ request.object.metadata.labels.team || '' }}", 'Equals', 'preset')];
  if (roll < 0.76) return [precondition("{{ request.object.metadata.labels.tier || '' }}", 'Equals', 'web')];
  if (roll < 0.82) return [precondition(`{{ request.object.metadata.annotations."example.com/debug" || '' }}`, 'Equals', 'true')];
  if (roll < 0.88) return [precondition('{{ request.object.spec.restartPolicy }}', 'NotEquals', 'Never')];
  if (roll < 0.93) return [precondition('{{ length(request.object.spec.containers) }}', 'GreaterThan', 1)];
  if (roll < 0.97) return [precondition('{{ request.object.metadata.labels.tier }}', 'AnyIn', ['web', 'x'])];
  return [precondition('{{ request.object.spec.nodeSelector }}', 'Equals', { zone: 'z1' })];
}

function randomMatch(r: () => number): MatchSpec | undefined {
  const roll = r();
  if (roll < 0.7) return PODS;
  if (roll < 0.8) return DEPLOYMENTS;
  if (roll < 0.9) return TIER_WEB;
  return undefined;
}

describe('runs of literal strategic-merge rules', () => {
  it('are made of two rules or more, each one literal merge into the object with a stable match', () => {
    const guard: Guard = { kind: 'jmes', expr: { text: 'true', origin }, origin } as unknown as Guard;
    const p = policy([smpRule('a', { spec: { x: 1 } }), smpRule('b', { spec: { y: 1 } }), smpRule('c', { spec: { z: 1 } }, PODS, [guard]), smpRule('d', { spec: { w: 1 } }), smpRule('e', { metadata: { labels: { tier: 'x' } } }, TIER_WEB)]);
    const cp = compilePolicy(p, GENERATED);
    const runs = smpRuleRuns(cp.rules, cp.ruleMatchSlots ?? []);
    expect(runs?.map((run) => run !== undefined)).toEqual([true, true, true, true, false]);
  });

  it('agree with the closure interpreter on random rules and Pods', () => {
    const r = rng(17);
    let compared = 0;
    for (let round = 0; round < 600; round++) {
      const rules: Rule[] = [];
      const count = 2 + Math.floor(r() * 6);
      for (let i = 0; i < count; i++) rules.push(smpRule(`r${i}`, randomPattern(r), randomMatch(r), randomGuards(r)));
      const policies = [policy(rules)];
      for (let k = 0; k < 5; k++) {
        const object = randomPod(r);
        const before = JSON.stringify(object);
        const request = { object, operation: 'CREATE' as const };
        const compiled = apply(policies, request, { trace: false, interpret: false });
        const interpreted = apply(policies, request, { trace: false, interpret: true });
        expect(differences(compiled, interpreted), JSON.stringify({ rules: rules.map((x) => x.body), object })).toEqual([]);
        expect(JSON.stringify(object)).toBe(before);
        compared++;
      }
    }
    expect(compared).toBe(3000);
  });

  it('leave traced runs, failurePolicy ignore and applyRules One to the rule loop, with the same results', () => {
    const rules = [smpRule('a', { metadata: { labels: { '+(team)': 'x' } } }), smpRule('b', { spec: { '(restartPolicy)': 'Always', dnsPolicy: 'ClusterFirst' } }), smpRule('c', { metadata: { labels: { team: 'y' } } })];
    const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { restartPolicy: 'Always' } };
    for (const semantics of [{}, { failurePolicy: 'ignore' as const }, { applyRules: 'one' as const }]) {
      for (const trace of [false, true]) {
        const policies = [policy(rules, semantics)];
        const compiled = apply(policies, { object, operation: 'CREATE' }, { trace, interpret: false });
        const interpreted = apply(policies, { object, operation: 'CREATE' }, { trace, interpret: true });
        expect(differences(compiled, interpreted, { trace }), JSON.stringify({ semantics, trace })).toEqual([]);
      }
    }
  });
});
