/**
 * The differential proof for preconditions/conditions blocks: conditionsToCel against Kyverno's evaluation
 * (src/dialects/kyverno/preconditions.ts evaluateConditions) on every document.
 */
import { describe, expect, it } from 'vitest';
import { conditionsToCel } from '../../../src/lowering/jmes-cel/index.js';
import { DOCS, TYPED_DOCS } from './docs.js';
import { conditionsDifferential, TALLY, SCOPE, TARGETS, TYPED_SCOPE } from './harness.js';

const o = 'request.object';
const c = (key: unknown, operator: string, value: unknown) => ({ key, operator, value });
const any = (...cs: unknown[]) => ({ any: cs });
const all = (...cs: unknown[]) => ({ all: cs });

const NAME = `{{ ${o}.metadata.name }}`;
const SAFE_NAME = `{{ ${o}.metadata.name || '' }}`;
const REPLICAS = `{{ ${o}.spec.replicas }}`;
const SAFE_REPLICAS = `{{ ${o}.spec.replicas || \`0\` }}`;
const LABELS = `{{ ${o}.metadata.labels || \`{}\` }}`;
const WORDS = `{{ ${o}.spec.words || \`[]\` }}`;
const NUMS = `{{ ${o}.spec.nums || \`[]\` }}`;
const ANN = (k: string) => `{{ ${o}.metadata.annotations."${k}" || '' }}`;

export const BLOCKS: unknown[] = [
  any(c('{{ request.operation }}', 'Equals', 'CREATE')),
  any(c('{{ request.operation }}', 'Equals', 'CREATE'), c('{{ request.operation }}', 'Equals', 'UPDATE')),
  all(c('{{ request.operation }}', 'NotEquals', 'DELETE')),
  [c(SAFE_NAME, 'Equals', 'web-*')],
  [c(SAFE_NAME, 'Equals', 'web-?')],
  [c(NAME, 'Equals', 'web-1')],
  [c(NAME, 'NotEquals', '')],
  [c(`{{ ${o}.metadata.labels.app || '' }}`, 'NotEquals', '')],
  [c(`{{ ${o}.metadata.labels.app }}`, 'Equals', 'web')],
  [c(SAFE_REPLICAS, 'Equals', 3)],
  [c(SAFE_REPLICAS, 'Equals', '3')],
  [c(SAFE_REPLICAS, 'Equals', 3.5)],
  [c(SAFE_REPLICAS, 'NotEquals', 3)],
  [c(`{{ ${o}.spec.flag || \`false\` }}`, 'Equals', true)],
  [c(`{{ ${o}.spec.none }}`, 'NotEquals', 'x')],
  [c(`{{ ${o}.spec.none }}`, 'Equals', null)],
  [c(WORDS, 'Equals', ['b', 'a', 'c', 'a'])],
  [c(LABELS, 'NotEquals', {})],
  [c(LABELS, 'Equals', { app: 'web', tier: '', 'app.kubernetes.io/name': 'web', team: 'a' })],
  [c(`{{ ${o}.spec.obj || \`{}\` }}`, 'Equals', { x: 1, y: 'two', z: null })],
  [c(ANN('mem'), 'Equals', '128Mi')],
  [c(ANN('mem'), 'Equals', '0.125Gi')],
  [c(ANN('dur'), 'Equals', '1m30s')],
  [c(ANN('dur'), 'Equals', 90)],
  [c('1h', 'Equals', '60m')],
  [c('1Gi', 'Equals', '1024Mi')],
  [c('10', 'Equals', '1*')],
  [c(SAFE_NAME, 'Equals', ANN('x/y'))],
  [c(`{{ ${o}.metadata.labels.app || '' }}`, 'Equals', `{{ ${o}.metadata.labels.team || '' }}`)],
  // set operators
  any(c(NAME, 'AnyIn', ['web-*', 'x'])),
  any(c(SAFE_NAME, 'AnyIn', ['api', 'db'])),
  any(c(SAFE_NAME, 'AnyNotIn', ['api', 'db'])),
  any(c(SAFE_NAME, 'AllIn', ['web-1', 'x'])),
  any(c(SAFE_NAME, 'AllNotIn', ['web*'])),
  any(c(WORDS, 'AnyIn', ['a', 'z'])),
  any(c(WORDS, 'AllIn', ['a', 'b', 'c'])),
  any(c(WORDS, 'AllIn', ['?'])),
  any(c(WORDS, 'AnyNotIn', ['a', 'b', 'c'])),
  any(c(WORDS, 'AllNotIn', ['z*'])),
  any(c(`{{ keys(${o}.metadata.labels || \`{}\`) }}`, 'AnyIn', ['team', 'owner'])),
  any(c(`{{ keys(${o}.metadata.labels || \`{}\`) }}`, 'AllNotIn', ['app.kubernetes.io/*'])),
  any(c(NUMS, 'AnyIn', [3, 10])),
  any(c(NUMS, 'AnyIn', ['1.5'])),
  any(c(SAFE_REPLICAS, 'AnyIn', [1, 2, 3])),
  any(c(SAFE_REPLICAS, 'AnyIn', '1-5')),
  any(c(SAFE_REPLICAS, 'AnyIn', '4!-10')),
  any(c(NUMS, 'AllIn', '-2-10')),
  any(c(SAFE_NAME, 'AnyIn', '["web-1","x"]')),
  any(c(SAFE_NAME, 'AnyIn', '[1,2]')),
  any(c(SAFE_NAME, 'AnyIn', 'web-1')),
  any(c(WORDS, 'AnyIn', 'a')),
  any(c(['a'], 'AnyIn', 'a')),
  any(c(WORDS, 'AnyIn', NUMS)),
  any(c(SAFE_NAME, 'AnyIn', WORDS)),
  any(c(SAFE_NAME, 'AnyIn', `{{ ${o}.metadata.labels.app || '' }}`)),
  any(c(SAFE_REPLICAS, 'AnyIn', 3)),
  any(c(`{{ ${o}.spec.flag || \`false\` }}`, 'AnyIn', ['true'])),
  any(c(`{{ ${o}.spec.flag || \`false\` }}`, 'AllIn', ['true'])),
  // In / NotIn
  any(c(SAFE_NAME, 'In', ['web-1', 'x'])),
  any(c(SAFE_NAME, 'In', 'web-*')),
  any(c(SAFE_NAME, 'NotIn', ['web-1'])),
  any(c(WORDS, 'In', ['a', 'b', 'c'])),
  any(c(WORDS, 'NotIn', ['a'])),
  any(c(NUMS, 'In', ['3'])),
  any(c(SAFE_NAME, 'In', '["web-1"]')),
  any(c(SAFE_NAME, 'In', WORDS)),
  // numeric
  all(c(SAFE_REPLICAS, 'GreaterThan', 2)),
  all(c(SAFE_REPLICAS, 'GreaterThanOrEquals', '3')),
  all(c(SAFE_REPLICAS, 'LessThan', 2.5)),
  all(c(SAFE_REPLICAS, 'LessThanOrEquals', '1e1')),
  all(c(ANN('mem'), 'GreaterThan', '100Mi')),
  all(c(ANN('mem'), 'LessThan', '1Gi')),
  all(c(ANN('dur'), 'GreaterThan', '1m')),
  all(c(ANN('dur'), 'LessThan', 100)),
  all(c(ANN('num'), 'GreaterThan', 41)),
  all(c(ANN('num'), 'GreaterThan', '4h')),
  all(c(`{{ ${o}.spec.version || '' }}`, 'GreaterThan', '1.2.0')),
  all(c(`{{ ${o}.spec.version || '' }}`, 'LessThan', '1.10.0')),
  all(c('1.2.3', 'LessThan', '1.10.0')),
  all(c(SAFE_NAME, 'GreaterThan', 'a')),
  all(c(ANN('mem'), 'GreaterThan', ANN('num'))),
  // Duration*
  all(c(ANN('dur'), 'DurationGreaterThan', '1m')),
  all(c(SAFE_REPLICAS, 'DurationLessThanOrEquals', '5s')),
  all(c(ANN('dur'), 'DurationLessThan', 3600)),
  // structure
  { any: [], all: [c(NAME, 'Equals', 'web-1')] },
  { all: [] },
  {},
  [],
  any(c(NAME, 'UnknownOperator', 'x')),
  any(c(NAME, 'equals', 'web-1')),
  any(c(`{{ ${o}.metadata.missing }}`, 'Equals', 'x'), c('a', 'Equals', 'a')),
  all(c('a', 'Equals', 'a'), { key: 'a', operator: 'Equals', value: 'a', message: `{{ ${o}.spec.missing }}` }),
  any(c(REPLICAS, 'GreaterThan', 1), c(NAME, 'Equals', 'x')),
  { any: [c(NAME, 'Equals', 'web-1')], all: [c(SAFE_REPLICAS, 'GreaterThan', 0)] },
  any(c(`{{ length(${o}.spec.containers || \`[]\`) }}`, 'GreaterThan', 1)),
  any(c(`{{ ${o}.spec.containers[?name=='nginx'] | length(@) }}`, 'Equals', 1)),
  any(c(`prefix-{{ ${o}.metadata.name || '' }}`, 'Equals', 'prefix-web-*')),
  any(c({ k: NAME }, 'Equals', { k: 'web-1' })),
  any(c([SAFE_NAME, 'x'], 'AnyIn', ['web-1'])),
];

export const BLOCKS_REFUSED: [unknown, 'cannot' | 'yet'][] = [
  [any(c('{{ request.roles }}', 'AnyIn', ['admin'])), 'cannot'],
  [any(c('{{ time_now_utc() }}', 'Equals', 'x')), 'cannot'],
  [any(c('x', '{{ foo }}', 'y')), 'yet'],
  [{ any: '{{ foo }}' }, 'yet'],
  [any(c({ '{{ foo }}': 1 }, 'Equals', {})), 'yet'],
];

/** Blocks that may compare semantic versions at runtime: Kubernetes 1.32 has no semver(). */
const NEEDS_SEMVER = new Set([
  JSON.stringify(all(c(`{{ ${o}.spec.version || '' }}`, 'GreaterThan', '1.2.0'))),
  JSON.stringify(all(c(`{{ ${o}.spec.version || '' }}`, 'LessThan', '1.10.0'))),
  JSON.stringify(all(c(ANN('mem'), 'GreaterThan', ANN('num')))),
]);

describe('conditions → CEL: differential against Kyverno operators', () => {
  for (const { name: targetName, target } of TARGETS) {
    describe(targetName, () => {
      for (const block of BLOCKS) {
        it(JSON.stringify(block), () => {
          if (targetName === 'map 1.32' && NEEDS_SEMVER.has(JSON.stringify(block))) {
            const r = conditionsToCel(block, SCOPE, target);
            expect(r.ok ? 'accepted' : r.class).toBe('yet');
            return;
          }
          conditionsDifferential(block, SCOPE, target, DOCS);
        });
      }
      for (const [block, cls] of BLOCKS_REFUSED) {
        it(`refuses ${JSON.stringify(block)} (${cls})`, () => {
          const r = conditionsToCel(block, SCOPE, target);
          expect(r.ok).toBe(false);
          if (!r.ok) expect(r.class, r.why).toBe(cls);
        });
      }
    });
  }

  describe('typed', () => {
    for (const { name: targetName, target } of TARGETS) {
      describe(targetName, () => {
        for (const block of BLOCKS) {
          if (targetName === 'map 1.32' && NEEDS_SEMVER.has(JSON.stringify(block))) continue;
          it(JSON.stringify(block), () => conditionsDifferential(block, TYPED_SCOPE, target, TYPED_DOCS));
        }
      });
    }
  });

  it('a literal-only block folds to a constant', () => {
    expect(conditionsToCel(any(c('a', 'Equals', 'a')), SCOPE, { env: 'map' })).toMatchObject({ ok: true, cel: 'true' });
    expect(conditionsToCel(any(c('1Gi', 'Equals', '1024Mi')), SCOPE, { env: 'map' })).toMatchObject({ ok: true, cel: 'true' });
  });
  it('agrees on value or failure in (almost) every run', () => {
    const total = TALLY.sameValue + TALLY.bothFail + TALLY.guarded;
    // eslint-disable-next-line no-console
    console.log(`conditions: ${total} runs: ${TALLY.sameValue} same value, ${TALLY.bothFail} both fail, ${TALLY.guarded} noted guard`);
    expect(TALLY.guarded).toBeLessThan(total / 20);
  });
});
