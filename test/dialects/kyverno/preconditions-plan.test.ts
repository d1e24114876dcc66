/**
 * The planned precondition evaluation (preconditions.ts compileConditionPlan, prepared JMESPath queries,
 * `{request: {object}}` documents) against the reference: the whole block substituted by substituteTree, then
 * its conditions tested (evaluateConditions). Outcomes, failures and their messages must be identical, over
 * every preconditions block of the conformance corpus and over random blocks, for CREATE and DELETE requests,
 * with and without foreach bindings.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileConditionPlan, compileConditions, compileGeneralConditions, evaluateConditions } from '../../../src/dialects/kyverno/preconditions.js';
import { prepareJmesQuery, substitutionEnv } from '../../../src/engines/jmes.js';
import type { ExprScope } from '../../../src/interpreter/engines.js';
import { Scope } from '../../../src/interpreter/scope.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../src/ir/json.js';
import { loadYamlText } from '../../../src/io/yaml-load.js';
import type { AdmissionRequest } from '../../../src/k8s/request.js';
import { describeShared, sharedPath } from '../../support/shared.js';

const POD: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'pod-1', namespace: 'ns-12', labels: { app: 'web', tier: 'backend' }, annotations: { 'example.com/debug': 'true', n: '5' } },
  spec: {
    restartPolicy: 'Always',
    containers: [
      { name: 'app', image: 'nginx:1.2', resources: { limits: { cpu: '500m', memory: '128Mi' } } },
      { name: 'side', image: 'busybox' },
    ],
  },
};
const BARE: JsonObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare' }, spec: {} };

function exprScope(request: AdmissionRequest, element?: JsonValue): ExprScope {
  let scope = Scope.EMPTY;
  if (element !== undefined) scope = scope.with('element', { value: element }).with('elementIndex', { value: 0 });
  return {
    object: request.object,
    oldObject: request.oldObject ?? null,
    request,
    params: null,
    namespaceObject: null,
    get vars() {
      return scope.values();
    },
    lookup: (name) => scope.lookup(name),
  };
}

function scopes(): { name: string; scope: ExprScope }[] {
  const out: { name: string; scope: ExprScope }[] = [];
  for (const [name, object] of [
    ['pod', POD],
    ['bare', BARE],
  ] as const) {
    out.push({ name: `CREATE ${name}`, scope: exprScope({ operation: 'CREATE', object }) });
    out.push({ name: `UPDATE ${name}`, scope: exprScope({ operation: 'UPDATE', object, oldObject: BARE }) });
    out.push({ name: `DELETE ${name}`, scope: exprScope({ operation: 'DELETE', object: null, oldObject: object }) });
    out.push({ name: `CREATE ${name} element`, scope: exprScope({ operation: 'CREATE', object }, (POD.spec as JsonObject).containers as JsonValue) });
    out.push({ name: `CREATE ${name} container`, scope: exprScope({ operation: 'CREATE', object, userInfo: { username: 'system:serviceaccount:ns:sa' } }, { name: 'app', image: 'nginx' }) });
  }
  // A variable named `request` shadows the request document.
  out.push({ name: 'shadowed request', scope: exprScope({ operation: 'CREATE', object: POD }) });
  const shadow = Scope.EMPTY.with('request', { value: { object: BARE, operation: 'X' } });
  out[out.length - 1]!.scope = { ...out[out.length - 1]!.scope, lookup: (name) => shadow.lookup(name), vars: shadow.values() };
  return out;
}

const SCOPES = scopes();

/** Every way of evaluating one block, each with a fresh environment per scope. */
function outcomes(block: JsonValue): { planned: unknown[]; general: unknown[]; reference: unknown[] } {
  const planned = compileConditions(block, prepareJmesQuery);
  const general = compileGeneralConditions(block);
  return {
    planned: SCOPES.map((s) => planned(substitutionEnv(s.scope))),
    general: SCOPES.map((s) => general(substitutionEnv(s.scope))),
    reference: SCOPES.map((s) => evaluateConditions(block, substitutionEnv(s.scope))),
  };
}

/** Tallies of what the compared evaluations gave, so a test can tell it compared more than failures. */
interface Tally {
  planned: number;
  holds: number;
  fails: number;
  errors: number;
}

function expectSame(block: JsonValue, tally?: Tally): void {
  const r = outcomes(block);
  expect(r.planned, JSON.stringify(block)).toEqual(r.reference);
  expect(r.general, JSON.stringify(block)).toEqual(r.reference);
  if (!tally) return;
  if (compileConditionPlan(block, prepareJmesQuery)) tally.planned++;
  for (const o of r.reference as { ok: boolean; value?: boolean }[]) {
    if (!o.ok) tally.errors++;
    else if (o.value) tally.holds++;
    else tally.fails++;
  }
}

const KEYS = [
  '{{ request.object.metadata.labels.tier }}',
  '{{request.object.metadata.labels.missing}}',
  '{{ length(request.object.spec.containers) }}',
  `{{ request.object.metadata.annotations."example.com/debug" || '' }}`,
  '{{ request.object.metadata.namespace }}',
  '{{ request.object.spec.restartPolicy }}',
  '{{ request.object.spec.containers[].name }}',
  '{{ request.object.spec.containers[0].resources.limits.cpu }}',
  '{{ request.object.metadata.toString }}',
  '{{ request.object.metadata.__proto__ }}',
  '{{ request.object.metadata.annotations.n }}',
  '{{ request.operation }}',
  '{{ request.oldObject.metadata.name }}',
  '{{ request.object }}',
  '{{ element.name }}',
  '{{ element }}',
  '{{ elementIndex }}',
  '{{ serviceAccountName }}',
  '{{ images.containers.app.tag }}',
  '{{- request.object.metadata.name }}',
  '{{ to_number(request.object.metadata.annotations.n) }}',
  'pod-{{ request.object.metadata.name }}-{{ request.object.metadata.labels.app }}',
  '{{ request.object.metadata.{{ element.name }} }}',
  '{{ bad ( syntax }}',
  '{{ }}',
  '\\{{ request.object.metadata.name }}',
  'backend',
  '',
  5,
  true,
  null,
  ['{{ request.object.metadata.labels.tier }}', 'x'],
  { a: '{{ request.object.metadata.name }}' },
];
const VALUES = ['backend', 'Never', '"true"', 'true', '1', 1, 0.5, '500m', '1Gi', '5s', ['ns-1*'], ['a*', 'side'], '*', 'pod-?', '', null, '{{ request.object.metadata.labels.app }}', ['{{ element.name }}']];
const OPERATORS = ['Equals', 'NotEquals', 'AnyIn', 'AllIn', 'AnyNotIn', 'AllNotIn', 'In', 'NotIn', 'GreaterThan', 'LessThanOrEquals', 'DurationLessThan', 'equals', 'Bogus', '{{ request.object.kind }}', 5];

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomBlock(next: () => number): JsonValue {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const condition = (): JsonValue => {
    if (next() < 0.03) return pick(['{{ request.object.kind }}', 'plain', 3]);
    const c: JsonObject = {};
    const fields: [string, () => JsonValue][] = [
      ['key', () => pick(KEYS) as JsonValue],
      ['operator', () => pick(OPERATORS)],
      ['value', () => pick(next() < 0.3 ? KEYS : VALUES) as JsonValue],
    ];
    if (next() < 0.1) fields.push(['message', () => pick(['static', 'tier is {{ request.object.metadata.labels.tier }}'])]);
    // Field order decides the order of substitution, hence which failure is reported.
    if (next() < 0.3) fields.reverse();
    for (const [k, v] of fields) if (next() > 0.05) c[k] = v();
    return c;
  };
  const list = (): JsonValue[] => Array.from({ length: Math.floor(next() * 4) }, condition);
  const shape = next();
  if (shape < 0.15) return list();
  const block: JsonObject = {};
  if (shape < 0.5) block.all = list();
  else if (shape < 0.75) block.any = list();
  else if (shape < 0.9) {
    block.any = list();
    block.all = list();
  } else {
    block.all = list();
    block.any = list();
  }
  if (next() < 0.05) block.note = pick(['x', '{{ request.object.kind }}']);
  if (next() < 0.03) block['{{ request.object.kind }}'] = [];
  if (next() < 0.05) block.any = null;
  return block;
}

describe('planned preconditions against the reference evaluation', () => {
  it('agree on random blocks', () => {
    const next = random(17);
    const tally: Tally = { planned: 0, holds: 0, fails: 0, errors: 0 };
    for (let i = 0; i < 1500; i++) expectSame(randomBlock(next), tally);
    // Most blocks take the planned path, and every kind of outcome is compared many times.
    expect(tally.planned).toBeGreaterThan(1000);
    expect(Math.min(tally.holds, tally.fails, tally.errors)).toBeGreaterThan(1000);
  });

  it('agree on the benchmark blocks and on edge shapes', () => {
    const blocks: JsonValue[] = [
      { all: [{ key: '{{ request.object.metadata.labels.tier }}', operator: 'Equals', value: 'backend' }] },
      { all: [{ key: '{{ length(request.object.spec.containers) }}', operator: 'GreaterThan', value: 1 }] },
      { all: [{ key: `{{ request.object.metadata.annotations."example.com/debug" || '' }}`, operator: 'Equals', value: 'true' }] },
      { all: [{ key: '{{ request.object.metadata.namespace }}', operator: 'AnyIn', value: ['ns-1*'] }] },
      { all: [{ key: '{{ request.object.spec.restartPolicy }}', operator: 'NotEquals', value: 'Never' }] },
      { any: [] },
      { all: [] },
      [],
      {},
      { any: null, all: [{ key: 'a', operator: 'Equals', value: 'a' }] },
      { all: [{ key: '{{ request.object.metadata.missing }}', operator: 'Equals', value: '{{ request.object.bad ( }}' }] },
      { all: [{ value: '{{ request.object.metadata.missing }}', operator: 'Equals', key: '{{ request.object.bad ( }}' }] },
    ];
    for (const b of blocks) expectSame(b);
  });
});

function* yamlFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* yamlFiles(p);
    else if (/\.ya?ml$/.test(name)) yield p;
  }
}

function* preconditionBlocks(v: JsonValue): Generator<JsonValue> {
  if (Array.isArray(v)) for (const x of v) yield* preconditionBlocks(x);
  else if (isJsonObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'preconditions' && x !== null) yield x;
      else yield* preconditionBlocks(x);
    }
  }
}

describeShared('planned preconditions over the conformance corpus', () => {
  it('agree with the reference on every preconditions block', () => {
    const seen = new Set<string>();
    const tally: Tally = { planned: 0, holds: 0, fails: 0, errors: 0 };
    for (const file of yamlFiles(sharedPath('conformance', 'kyverno'))) {
      const text = readFileSync(file, 'utf8');
      if (!text.includes('preconditions')) continue;
      const loaded = loadYamlText(file, text);
      if (!loaded.ok) continue;
      for (const doc of loaded.value) {
        for (const block of preconditionBlocks(doc.value)) {
          const key = JSON.stringify(block);
          if (seen.has(key)) continue;
          seen.add(key);
          expectSame(block, tally);
        }
      }
    }
    expect(seen.size).toBeGreaterThan(25);
    expect(tally.planned).toBeGreaterThan(25);
    console.log(`preconditions-plan corpus: ${seen.size} blocks, ${JSON.stringify(tally)}`);
  });
});
