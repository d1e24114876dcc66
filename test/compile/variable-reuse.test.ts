/**
 * MAP variables evaluated once for the mutations that leave their inputs alone (src/compile/variable-reuse.ts,
 * src/compile/cel-places.ts): the places found in CEL, the plan of a policy, and random policies whose
 * mutations write where their variables read (or not), run generated and by the closure interpreter (which
 * evaluates every variable per mutation): same objects, verdicts and diagnostics.
 */
import { describe, expect, it } from 'vitest';
import { parse } from '../../src/cel/program.js';
import { applyConfigurationWrites, EVERYWHERE, jsonPatchWrites, objectReads, placesOverlap } from '../../src/compile/cel-places.js';
import { planVariableReuse } from '../../src/compile/variable-reuse.js';
import { apply } from '../../src/interpreter/index.js';
import type { JsonObject } from '../../src/ir/json.js';
import type { Op, Policy } from '../../src/ir/nodes.js';
import { applyApiServerDefaults } from '../../src/k8s/defaults/index.js';
import { createRuntime } from '../../src/runtime/create.js';
import { differences } from '../support/run-differential.js';
import { mulberry32 } from '../support/random.js';
import { applyConfiguration, jsonPatch, mapPolicies, namedExpression } from '../support/map-policy.js';

const ast = (text: string) => {
  const r = parse(text);
  if (!r.ok) throw new Error(r.diagnostics[0]!.message);
  return r.value;
};

describe('places in CEL', () => {
  it('reads: chains from object, whole-object uses', () => {
    expect(objectReads(ast('has(object.metadata.labels.tier) ? object.metadata.labels["tier"] : "none"'))).toEqual([
      ['metadata', 'labels', 'tier'],
      ['metadata', 'labels', 'tier'],
    ]);
    expect(objectReads(ast('"k" in object.metadata.annotations && object.?spec.?x.orValue(1) > 0'))).toEqual([
      ['metadata', 'annotations'],
      ['spec', 'x'],
    ]);
    expect(objectReads(ast('object.spec.containers[0].name == "a"'))).toEqual([['spec', 'containers']]);
    expect(objectReads(ast('object.spec.containers.map(c, c.name)'))).toEqual([['spec', 'containers']]);
    expect(objectReads(ast('size(object) > 0'))).toBe(EVERYWHERE);
    expect(objectReads(ast('object[variables.k] == 1'))).toBe(EVERYWHERE);
    expect(objectReads(ast('[1].map(object, object + 1)'))).toBe(EVERYWHERE);
    expect(objectReads(ast('oldObject.metadata.name == params.x'))).toEqual([]);
  });

  it('ApplyConfiguration writes: the literal tree down to its values', () => {
    expect(applyConfigurationWrites(ast('Object{metadata: Object.metadata{labels: {"a": variables.x, "b": "c"}}}'))).toEqual([
      ['metadata', 'labels', 'a'],
      ['metadata', 'labels', 'b'],
    ]);
    expect(applyConfigurationWrites(ast('Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name})}}'))).toEqual([['spec', 'containers']]);
    expect(applyConfigurationWrites(ast('x ? Object{spec: Object.spec{}} : Object{metadata: Object.metadata{labels: variables.m}}'))).toEqual([['spec'], ['metadata', 'labels']]);
    expect(applyConfigurationWrites(ast('variables.patch'))).toBe(EVERYWHERE);
    expect(applyConfigurationWrites(ast('Object{metadata: Object.metadata{labels: {variables.k: "v"}}}'))).toEqual([['metadata', 'labels']]);
  });

  it('JSONPatch writes: constant paths and froms, decoded', () => {
    expect(jsonPatchWrites(ast('[JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("a.b/c~d"), value: "x"}]'))).toEqual([['metadata', 'annotations', 'a.b/c~d']]);
    expect(jsonPatchWrites(ast('c ? [JSONPatch{op: "move", from: "/spec/a", path: "/spec/b"}] : []'))).toEqual([['spec', 'a'], ['spec', 'b']]);
    expect(jsonPatchWrites(ast('[JSONPatch{op: "test", path: "/spec/a", value: 1}]'))).toEqual([]);
    expect(jsonPatchWrites(ast('[JSONPatch{op: "add", path: "/spec/" + variables.k, value: 1}]'))).toBe(EVERYWHERE);
    expect(jsonPatchWrites(ast('[JSONPatch{op: "add", path: "", value: {}}]'))).toEqual([[]]);
    expect(jsonPatchWrites(ast('variables.ops'))).toBe(EVERYWHERE);
  });

  it('overlap: one path a prefix of the other', () => {
    expect(placesOverlap([['metadata', 'labels', 'a']], [['metadata', 'labels', 'b']])).toBe(false);
    expect(placesOverlap([['metadata', 'labels']], [['metadata', 'labels', 'b']])).toBe(true);
    expect(placesOverlap([['spec', 'containers', '0', 'image']], [['spec', 'containers']])).toBe(true);
    expect(placesOverlap([[]], [['spec']])).toBe(true);
    expect(placesOverlap([], EVERYWHERE)).toBe(true);
  });
});

function mapPolicy(name: string, variables: string[], mutations: string[]): Policy[] {
  return mapPolicies(name, { variables, mutations });
}

describe('the plan', () => {
  it('keeps a value across the mutations that write elsewhere, not across one that writes where it reads', () => {
    const [policy] = mapPolicy(
      'plan',
      [namedExpression('a', 'has(object.metadata.labels.a) ? object.metadata.labels.a : "none"'), namedExpression('count', 'size(object.spec.containers)')],
      [
        applyConfiguration('Object{metadata: Object.metadata{labels: {"seen": variables.a}}}'),
        jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels/a", value: "x"}]'),
        applyConfiguration('Object{spec: Object.spec{containers: [Object.spec.containers{name: "z", image: "i"}]}}'),
        jsonPatch('[JSONPatch{op: "add", path: "/metadata/annotations", value: {"n": string(variables.count), "a": variables.a}}]'),
      ],
    );
    const plan = planVariableReuse(policy!)!;
    expect(plan).toBeDefined();
    // a computed at rule 0 holds at rule 1 (rule 0 writes labels.seen), not at 2 or 3 (rule 1 writes labels.a).
    expect([plan.holds(0, 0, 1), plan.holds(0, 0, 2), plan.holds(0, 2, 3)]).toEqual([true, false, true]);
    // count computed at rule 0 holds until rule 2 writes the containers.
    expect([plan.holds(1, 0, 2), plan.holds(1, 0, 3)]).toEqual([true, false]);
    // Never within one rule: it may write between two bindings of the variable.
    expect([plan.holds(0, 1, 1), plan.holds(1, 3, 3)]).toEqual([false, false]);
  });
});

describe('a rule that binds a variable twice and writes between', () => {
  it('evaluates the second binding again', () => {
    const [parsed] = mapPolicy('twice', [namedExpression('v', 'has(object.metadata.labels.a) ? "yes" : "no"')], [jsonPatch('[]'), jsonPatch('[]')]);
    const [first, second] = parsed!.rules;
    const origin = first!.origin;
    const cel = (text: string) => ({ kind: 'cel' as const, expr: { text, origin }, origin });
    const bind = (): Op => ({ kind: 'let', name: 'v', value: cel('has(object.metadata.labels.a) ? "yes" : "no"'), lazy: true, origin });
    const add = (key: string, value: string): Op => ({ kind: 'jsonPatch', steps: [], stepsFrom: cel(`[JSONPatch{op: "add", path: "/metadata/labels/${key}", value: ${value}}]`), profile: 'evanphx-v4', origin });
    const policy: Policy = {
      ...parsed!,
      rules: [
        { ...first!, body: [bind(), add('first', 'variables.v'), add('a', '"x"'), bind(), add('second', 'variables.v')] },
        { ...second!, body: [bind(), add('third', 'variables.v')] },
      ],
    };
    expect(planVariableReuse(policy)).toBeDefined();
    const request = { object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { z: 'z' } }, spec: { containers: [{ name: 'c', image: 'i' }] } }, operation: 'CREATE' as const };
    const compiled = apply([policy], request, { trace: false });
    expect(differences(compiled, apply([policy], request, { trace: false, interpret: true }))).toEqual([]);
    expect((compiled.object as JsonObject).metadata).toMatchObject({ labels: { first: 'no', a: 'x', second: 'yes', third: 'yes' } });
  });
});

describe('a runtime that re-defaults the object after each mutation', () => {
  it('shares no value: the defaulter may write where a variable reads', () => {
    // The input is not defaulted (an offline Pod); the first mutation's re-defaulting adds restartPolicy.
    const set = mapPolicy(
      'defaulted',
      [namedExpression('policy', 'has(object.spec.restartPolicy) ? object.spec.restartPolicy : "unset"')],
      [
        applyConfiguration('Object{metadata: Object.metadata{labels: {"first": variables.policy}}}'),
        applyConfiguration('Object{metadata: Object.metadata{labels: {"second": variables.policy}}}'),
      ],
    );
    expect(planVariableReuse(set[0]!)).toBeDefined();
    const runtime = createRuntime({ defaulter: applyApiServerDefaults });
    const request = { object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } }, operation: 'CREATE' as const };
    const compiled = apply(set, request, { trace: false, runtime });
    const interpreted = apply(set, request, { trace: false, interpret: true, runtime });
    expect(differences(compiled, interpreted)).toEqual([]);
    expect((compiled.object as JsonObject).metadata).toMatchObject({ labels: { first: 'unset', second: 'Always' } });
  });
});

describe('random policies: generated with shared variables against the closure interpreter', () => {
  const reads = [
    'has(object.metadata.labels.a) ? object.metadata.labels.a : "none"',
    'object.metadata.labels.a',
    '"a" in object.metadata.annotations ? "yes" : "no"',
    'string(size(object.spec.containers))',
    'object.metadata.name + "-" + variables.v0',
    'has(object.spec.nodeSelector) ? "ns" : "none"',
  ];
  const writes = (v: string) => [
    applyConfiguration(`Object{metadata: Object.metadata{labels: {"a": ${v}}}}`),
    applyConfiguration(`Object{metadata: Object.metadata{labels: {"b": ${v}}}}`),
    applyConfiguration(`Object{metadata: Object.metadata{annotations: {"a": ${v}}}}`),
    applyConfiguration(`Object{spec: Object.spec{containers: [Object.spec.containers{name: "x-" + ${v}, image: "i"}]}}`),
    applyConfiguration(`Object{spec: Object.spec{nodeSelector: {"k": ${v}}}}`),
    jsonPatch(`has(object.metadata.labels.a) ? [JSONPatch{op: "remove", path: "/metadata/labels/a"}] : [JSONPatch{op: "add", path: "/metadata/labels/a", value: ${v}}]`),
    jsonPatch(`[JSONPatch{op: "add", path: "/metadata/labels/c", value: ${v}}]`),
    jsonPatch(`has(object.metadata.annotations) ? [JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("a"), value: ${v}}] : []`),
    jsonPatch(`has(object.spec.nodeSelector) ? [JSONPatch{op: "remove", path: "/spec/nodeSelector"}] : []`),
  ];
  const pod = (next: () => number, i: number): JsonObject => {
    const labels: JsonObject = next() < 0.5 ? { a: `l${i}` } : { z: 'z' };
    const metadata: JsonObject = { name: `p${i}`, labels };
    if (next() < 0.5) metadata.annotations = next() < 0.5 ? { a: 'x' } : { b: 'y' };
    const spec: JsonObject = { containers: [{ name: 'app', image: 'i' }] };
    if (next() < 0.4) spec.nodeSelector = { zone: 'z1' };
    return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
  };

  it('gives the same results over 150 policies and 8 Pods each', () => {
    let shared = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const next = mulberry32(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
      const count = 2 + Math.floor(next() * 3);
      const vars = Array.from({ length: count }, (_, i) => namedExpression(`v${i}`, i === 0 ? pick(reads.filter((r) => !r.includes('variables'))) : pick(reads)));
      const mutations = Array.from({ length: 3 + Math.floor(next() * 5) }, () => pick(writes(`variables.v${Math.floor(next() * count)}`)));
      const set = mapPolicy(`p${seed}`, vars, mutations);
      if (planVariableReuse(set[0]!) !== undefined) shared++;
      for (let i = 0; i < 8; i++) {
        const request = { object: pod(next, i), operation: 'CREATE' as const };
        const compiled = apply(set, request, { trace: false });
        const interpreted = apply(set, request, { trace: false, interpret: true });
        expect(differences(compiled, interpreted), `seed ${seed} pod ${i}\n${vars.join('\n')}\n${mutations.join('\n')}`).toEqual([]);
      }
    }
    expect(shared).toBeGreaterThan(100);
  });
});
