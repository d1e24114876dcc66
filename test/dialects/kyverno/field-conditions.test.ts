/**
 * Preconditions blocks generated as one function (src/dialects/kyverno/field-conditions.ts) against the planned
 * evaluation (preconditions.ts, through engines/jmes.ts's direct path without them) and the closure
 * interpreter's general guard: random blocks of field-reading (plain, `|| <default>`, `length()`),
 * operation-reading and constant keys, every operator, constant values of every JSON type, over random Pods
 * whose fields are missing, null, maps, lists and scalars, and random operations. Where the generated block
 * answers, the answer must be the planned one; the whole policy must give what the closure interpreter gives,
 * verdict, object and diagnostics.
 */
import { describe, expect, it } from 'vitest';
import { fieldConditions } from '../../../src/dialects/kyverno/field-conditions.js';
import { compileConditions } from '../../../src/dialects/kyverno/preconditions.js';
import { objectFieldOf, prepareJmesQuery, queryJmes } from '../../../src/engines/jmes.js';
import { apply } from '../../../src/interpreter/index.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import type { JsonObject, JsonValue } from '../../../src/ir/json.js';
import type { Policy } from '../../../src/ir/nodes.js';
import { parsePolicyDocs } from '../../../src/pipeline.js';
import { differences } from '../../support/run-differential.js';
import { mulberry32, pick } from '../../support/random.js';

const KEYS = [
  '{{ request.object.metadata.name }}',
  '{{ request.object.metadata.labels.tier }}',
  '{{ request.object.metadata.labels."constructor" }}',
  '{{ request.object.metadata.annotations."example.com/debug" }}',
  '{{ request.object.spec.restartPolicy }}',
  '{{ request.object.spec.priority }}',
  '{{ request.object.spec.containers }}',
  '{{ request.object.spec.missing }}',
  '{{ request.object.metadata }}',
  '{{ request.object.spec.nodeSelector.zone }}',
  '{{ request.object.spec.containers.name }}',
  '{{ request.object }}',
  "{{ request.object.metadata.labels.tier || '' }}",
  "{{ request.object.spec.missing || 'web' }}",
  "{{ request.object.metadata.annotations.\"example.com/debug\" || 'false' }}",
  '{{ request.object.spec.priority || `5` }}',
  "{{ request.object.spec.nodeSelector || 'none' }}",
  "{{ request.object.spec.nodeSelector.zone || `true` }}",
  '{{ length(request.object.spec.containers) }}',
  '{{ length(request.object.metadata.labels) }}',
  '{{ length(request.object.metadata.name) }}',
  '{{ length(request.object.spec.priority) }}',
  '{{ length(request.object.spec.missing) }}',
  '{{ request.operation }}',
  "{{ request.operation || 'BACKGROUND' }}",
  '{{ length(request.operation) }}',
  'web',
  '3',
];
const CONSTANT_KEYS: JsonValue[] = [3, true, null, ['web', 'db']];
const OPERATORS = ['Equals', 'NotEquals', 'equals', 'In', 'NotIn', 'AnyIn', 'AllIn', 'AnyNotIn', 'AllNotIn', 'GreaterThan', 'LessThanOrEquals', 'DurationGreaterThan', 'Nope'];
const VALUES: JsonValue[] = ['web', 'web*', 'backend', '1', 1, 2.5, true, null, ['web', 'backend'], ['ns-1*', 'p-*'], '1h', '500m', {}, '1-5', '["web"]', 'Always', '', 'CREATE', ['CREATE', 'UPDATE'], 'BACK*'];
/** Operations of the requests (a DELETE takes the general guard; an unset one reads as null). */
const OPERATIONS: (string | undefined)[] = ['CREATE', 'UPDATE', 'CONNECT', '', undefined];

function randomCondition(r: () => number): JsonObject {
  const c: JsonObject = { key: r() < 0.1 ? pick(r, CONSTANT_KEYS) : pick(r, KEYS), operator: pick(r, OPERATORS) };
  if (r() < 0.95) c.value = pick(r, VALUES);
  if (r() < 0.1) c.message = 'no';
  return c;
}

function randomBlock(r: () => number): JsonValue {
  const list = (): JsonValue[] => Array.from({ length: Math.floor(r() * 3) }, () => randomCondition(r));
  const roll = r();
  if (roll < 0.15) return list();
  const block: JsonObject = {};
  if (roll < 0.6) block.all = list();
  if (roll > 0.4) block.any = list();
  if (Object.keys(block).length === 0) block.all = list();
  return block;
}

function randomPod(r: () => number): JsonObject {
  const labels: JsonObject = {};
  if (r() < 0.7) labels.tier = pick(r, ['web', 'backend', 'web-2', 1, null, '']);
  if (r() < 0.1) labels['constructor' as string] = 'web';
  const metadata: JsonObject = { name: pick(r, ['p', 'web', 'p-1']), labels };
  if (r() < 0.5) metadata.annotations = r() < 0.1 ? null : { 'example.com/debug': pick(r, ['true', 'false', 1]) };
  const spec: JsonObject = { containers: [{ name: 'web', image: 'i' }] };
  if (r() < 0.7) spec.restartPolicy = pick(r, ['Always', 'Never', null]);
  if (r() < 0.5) spec.priority = pick(r, [0, 1, 2.5, 100, '2']);
  if (r() < 0.5) spec.nodeSelector = r() < 0.2 ? ['x'] : { zone: pick(r, ['z1', '1h', '500m']) };
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
}

/** The policy guarded by `block`, or undefined when Kyverno's validation rejects it. */
function policy(block: JsonValue): Policy[] | undefined {
  const doc = {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'guarded', annotations: { 'pod-policies.kyverno.io/autogen-controllers': 'none' } },
    spec: {
      rules: [
        {
          name: 'label',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          preconditions: block,
          mutate: { patchStrategicMerge: { metadata: { labels: { guarded: 'yes' } } } },
        },
      ],
    },
  };
  const docs = loadYamlText('guarded.yaml', JSON.stringify(doc));
  if (!docs.ok) throw new Error(docs.diagnostics.map((d) => d.message).join('\n'));
  const parsed = parsePolicyDocs(docs.value);
  if (parsed.policies.length === 1) return parsed.policies;
  // Kyverno's validation rejects some random blocks: an unknown operator, a condition without a value, an
  // operation compared with anything but CREATE, UPDATE, DELETE or CONNECT.
  expect(parsed.diagnostics.length).toBeGreaterThan(0);
  return undefined;
}

/** The planned evaluation of `block` against `object` and `operation`, as the direct path runs it without the generated block. */
function planned(block: JsonValue, object: JsonValue, operation: string | undefined): { ok: true; value: boolean } | { ok: false } {
  const evaluate = compileConditions(block, prepareJmesQuery);
  const doc = { request: { object, operation } };
  const r = evaluate({ isDelete: false, query: (expression: string) => queryJmes(expression, doc) });
  return r.ok ? { ok: true, value: r.value } : { ok: false };
}

describe('preconditions generated as one function', () => {
  it('answer as the planned evaluation wherever they answer, and the policy as the closure interpreter', () => {
    const r = mulberry32(1717);
    let answered = 0;
    let declined = 0;
    let generated = 0;
    let applied = 0;
    for (let round = 0; round < 400; round++) {
      const block = randomBlock(r);
      const fields = fieldConditions(block, objectFieldOf);
      if (fields !== undefined) generated++;
      const set = policy(block);
      for (let k = 0; k < 5; k++) {
        const object = randomPod(r);
        const operation = pick(r, OPERATIONS);
        if (fields !== undefined) {
          const holds = fields(object, operation);
          if (holds === undefined) declined++;
          else {
            expect(planned(block, object, operation), JSON.stringify({ block, object, operation })).toEqual({ ok: true, value: holds });
            answered++;
          }
        }
        if (set === undefined) continue;
        const request = r() < 0.1 ? { object: null, oldObject: object, operation: 'DELETE' as const } : { object, operation: operation as 'CREATE' };
        const compiled = apply(set, request, { trace: false, interpret: false });
        const interpreted = apply(set, request, { trace: false, interpret: true });
        expect(differences(compiled, interpreted), JSON.stringify({ block, request })).toEqual([]);
        applied++;
      }
    }
    expect(generated).toBeGreaterThan(100);
    expect(applied).toBeGreaterThan(800);
    expect(answered).toBeGreaterThan(300);
    expect(declined).toBeGreaterThan(50);
  });

  it('answer as the planned evaluation for every read, operator and value over false-like and odd fields', () => {
    const FIELDS: JsonValue[] = [null, '', 0, false, [], {}, 'web', 2, true, ['a', 'b'], { a: 1, b: 2 }, '1h'];
    const pods: JsonObject[] = FIELDS.map((v) => ({ metadata: { name: 'p', labels: { tier: v } }, spec: { priority: v, nodeSelector: { zone: v }, containers: v } }));
    pods.push({ metadata: { name: 'p' }, spec: { nodeSelector: 'flat' } }, { metadata: 'flat', spec: null });
    const reads = [
      '{{ request.object.metadata.labels.tier }}',
      "{{ request.object.metadata.labels.tier || '' }}",
      "{{ request.object.metadata.labels.tier || 'web' }}",
      '{{ request.object.spec.priority || `5` }}',
      '{{ request.object.spec.nodeSelector.zone || `true` }}',
      '{{ length(request.object.spec.containers) }}',
      '{{ length(request.object.metadata.labels) }}',
      '{{ length(request.object.metadata.labels.tier) }}',
      '{{ request.operation }}',
      "{{ request.operation || 'BACKGROUND' }}",
    ];
    let answered = 0;
    for (const key of reads) {
      for (const operator of OPERATORS) {
        for (const value of VALUES) {
          const block = { all: [{ key, operator, value }] };
          const fields = fieldConditions(block, objectFieldOf);
          if (operator === 'Nope') {
            expect(fields).toBeUndefined();
            continue;
          }
          expect(fields, key).toBeDefined();
          for (const object of pods) {
            for (const operation of OPERATIONS) {
              const holds = fields!(object, operation);
              if (holds === undefined) continue;
              expect(planned(block, object, operation), JSON.stringify({ block, object, operation })).toEqual({ ok: true, value: holds });
              answered++;
            }
          }
        }
      }
    }
    expect(answered).toBeGreaterThan(10_000);
  });

  it('are made only for constant values, known operators and keys that are constants or whole field holes', () => {
    const fields = (block: JsonValue): boolean => fieldConditions(block, objectFieldOf) !== undefined;
    expect(fields({ all: [{ key: '{{ request.object.metadata.name }}', operator: 'Equals', value: 'p' }] })).toBe(true);
    expect(fields([{ key: 'x', operator: 'NotEquals', value: 'y' }])).toBe(true);
    expect(fields({ all: [{ key: '{{ request.object.metadata.name }}', operator: 'Nope', value: 'p' }] })).toBe(false);
    expect(fields({ all: [{ key: '{{ request.object.metadata.name }}', operator: 'Equals', value: '{{ request.object.metadata.name }}' }] })).toBe(false);
    expect(fields({ all: [{ key: "{{ request.object.metadata.name || '' }}", operator: 'Equals', value: 'p' }] })).toBe(true);
    expect(fields({ all: [{ key: '{{ length(request.object.spec.containers) }}', operator: 'GreaterThan', value: 1 }] })).toBe(true);
    expect(fields({ all: [{ key: '{{ request.object.metadata.name || request.object.metadata.namespace }}', operator: 'Equals', value: 'p' }] })).toBe(false);
    expect(fields({ all: [{ key: '{{ request.object.metadata.name || `null` }}', operator: 'Equals', value: 'p' }] })).toBe(false);
    expect(fields({ all: [{ key: '{{ to_upper(request.object.metadata.name) }}', operator: 'Equals', value: 'P' }] })).toBe(false);
    expect(fields({ all: [{ key: 'x-{{ request.object.metadata.name }}', operator: 'Equals', value: 'x-p' }] })).toBe(false);
    expect(fields({ all: [{ key: '{{ request.operation }}', operator: 'Equals', value: 'CREATE' }] })).toBe(true);
    expect(fields({ all: [{ key: '{{ length(request.operation) }}', operator: 'Equals', value: 6 }] })).toBe(false);
    expect(fields({ all: [{ key: '{{ request.userInfo.username }}', operator: 'Equals', value: 'u' }] })).toBe(false);
    expect(fields({ all: [{ key: '{{ request.object.spec.containers[0].name }}', operator: 'Equals', value: 'a' }] })).toBe(false);
  });
});
