/**
 * Differential test of the fused ApplyConfiguration walk planned from the patch's literal shape
 * (src/compile/apply-template.ts, src/merge/ssa/fused-plan.ts): random `Object{...}` expressions (struct
 * fields, constant-key maps, lists of literals, `map()` of literals, constants, dynamic leaves that are
 * scalars, maps, lists or null) over random Pods (fields absent, present, of the wrong type) must give the
 * reference's result, key order included, by the generated code and the closure interpreter alike.
 */
import { describe, expect, it } from 'vitest';
import { makePods } from '../../bench/pods.js';
import { applyConfigurationTemplate as templateOfSyntax } from '../../src/compile/apply-template.js';
import { parse } from '../../src/cel/program.js';
import { kindSchema, REFERENCE_SSA_ENGINE, REFERENCE_TYPED_DECODER } from '../../src/engines/ssa.js';
import { apply } from '../../src/interpreter/index.js';
import type { ApplyResult } from '../../src/interpreter/api.js';
import type { JsonObject, JsonValue } from '../../src/ir/json.js';
import type { Policy } from '../../src/ir/nodes.js';
import { CheckedSubtrees } from '../../src/merge/ssa/checked.js';
import { applyStructuredMergeDiff } from '../../src/merge/ssa/apply.js';
import { applyFused, FusedWalk } from '../../src/merge/ssa/fused-apply.js';
import { PatchShape } from '../../src/merge/ssa/fused-plan.js';
import { createRuntime } from '../../src/runtime/create.js';
import { deriveRuntime } from '../../src/runtime/runtime.js';
import { mulberry32 as random } from '../support/random.js';
import { applyConfiguration, mapPolicies, namedExpression } from '../support/map-policy.js';

/** The template of an expression's text (the interpreter takes the syntax from src/compile/cel-syntax.ts). */
function applyConfigurationTemplate(text: string) {
  const r = parse(text);
  return templateOfSyntax(r.ok ? r.value : undefined);
}

const FUSED = createRuntime();
const REFERENCE = deriveRuntime(FUSED, { merges: { ssa: REFERENCE_SSA_ENGINE }, typedDecoder: REFERENCE_TYPED_DECODER });

function policyOf(expressions: readonly string[]): Policy[] {
  return mapPolicies('templated', {
    reinvocationPolicy: 'Never',
    variables: [namedExpression('tier', 'has(object.metadata.labels) && has(object.metadata.labels.tier) ? object.metadata.labels.tier : "none"')],
    mutations: expressions.map(applyConfiguration),
  });
}

type Next = () => number;
const pick = <T>(next: Next, xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;

/** A leaf the template says nothing about: a scalar, a map, a list or null, of the right type or not. */
function dynamicLeaf(next: Next): string {
  return pick(next, [
    'variables.tier',
    'object.metadata.name',
    '"constant"',
    '7',
    'true',
    'null',
    '{"k": variables.tier}',
    '[variables.tier]',
    'object.metadata',
    'object.spec.containers',
    'has(object.metadata.labels) ? object.metadata.labels : {"x": "y"}',
  ]);
}

function stringMap(next: Next): string {
  const keys = ['managed-by', 'tier', 'app', 'example.com/x', 'zz'];
  const n = Math.floor(next() * 3);
  // Values of several types in one literal take dyn() (kube-apiserver's HomogeneousAggregateLiterals).
  const entries = Array.from({ length: n }, (_, i) => `"${keys[(i + Math.floor(next() * 5)) % 5]!}${i}": dyn(${next() < 0.7 ? pick(next, ['variables.tier', '"v"', 'object.metadata.name']) : dynamicLeaf(next)})`);
  return `{${entries.join(', ')}}`;
}

function container(next: Next, name: string): string {
  const fields = [`name: ${name}`];
  if (next() < 0.5) fields.push(`image: ${next() < 0.8 ? '"img:1"' : dynamicLeaf(next)}`);
  if (next() < 0.4) fields.push('imagePullPolicy: "IfNotPresent"');
  // An atomic list: the atomic guard's case below the list's items.
  if (next() < 0.2) fields.push('command: ["sh"]');
  if (next() < 0.3) fields.push(`ports: [Object.spec.containers.ports{containerPort: ${8000 + Math.floor(next() * 3)}, protocol: "TCP"}]`);
  return `Object.spec.containers{${fields.join(', ')}}`;
}

function containersValue(next: Next): string {
  const r = next();
  if (r < 0.35) return `object.spec.containers.map(c, ${container(next, 'c.name')})`;
  if (r < 0.8) return `[${Array.from({ length: 1 + Math.floor(next() * 2) }, (_, i) => container(next, pick(next, ['"proxy"', '"app"', `"c${i}"`]))).join(', ')}]`;
  return dynamicLeaf(next);
}

function securityContext(next: Next): string {
  const fields: string[] = [];
  if (next() < 0.7) fields.push(`runAsNonRoot: ${next() < 0.8 ? 'true' : dynamicLeaf(next)}`);
  if (next() < 0.6) fields.push(`seccompProfile: ${next() < 0.8 ? 'Object.spec.securityContext.seccompProfile{type: "RuntimeDefault"}' : dynamicLeaf(next)}`);
  if (next() < 0.2) fields.push(`runAsUser: ${next() < 0.5 ? '1000' : '"x"'}`);
  return `Object.spec.securityContext{${fields.join(', ')}}`;
}

/** A random ApplyConfiguration over a Pod: an Object literal tree with leaves of every kind. */
function expression(next: Next): string {
  const metadata: string[] = [];
  if (next() < 0.6) metadata.push(`labels: ${next() < 0.85 ? stringMap(next) : dynamicLeaf(next)}`);
  if (next() < 0.4) metadata.push(`annotations: ${next() < 0.85 ? stringMap(next) : dynamicLeaf(next)}`);
  if (next() < 0.1) metadata.push(`name: ${dynamicLeaf(next)}`);
  const spec: string[] = [];
  if (next() < 0.5) spec.push(`containers: ${containersValue(next)}`);
  if (next() < 0.4) spec.push(`securityContext: ${next() < 0.85 ? securityContext(next) : dynamicLeaf(next)}`);
  if (next() < 0.2) spec.push(`nodeSelector: ${stringMap(next)}`);
  if (next() < 0.1) spec.push(`restartPolicy: ${dynamicLeaf(next)}`);
  const root: string[] = [];
  const both = next();
  if (metadata.length > 0 && both < 0.7) root.push(`metadata: Object.metadata{${metadata.join(', ')}}`);
  if (spec.length > 0 && (both >= 0.3 || root.length === 0)) root.push(`spec: Object.spec{${spec.join(', ')}}`);
  return `Object{${root.join(', ')}}`;
}

const ODD_VALUES: JsonValue[] = [null, 7, 'x', true, [], {}, ['a'], { zzUndeclared: 1 }];

/** A benchmark Pod with fields dropped or given values of another type. */
function livePod(pod: JsonObject, next: Next): JsonObject {
  const out = JSON.parse(JSON.stringify(pod)) as JsonObject;
  const places: [JsonObject, string][] = [
    [out, 'metadata'],
    [out, 'spec'],
    [out.metadata as JsonObject, 'labels'],
    [out.metadata as JsonObject, 'annotations'],
    [out.spec as JsonObject, 'containers'],
    [out.spec as JsonObject, 'securityContext'],
  ];
  const edits = Math.floor(next() * 3);
  for (let e = 0; e < edits; e++) {
    const [map, key] = pick(next, places);
    if (map === null || typeof map !== 'object' || Array.isArray(map)) continue;
    if (next() < 0.6) delete map[key];
    else map[key] = JSON.parse(JSON.stringify(pick(next, ODD_VALUES))) as JsonValue;
  }
  const spec = out.spec;
  if (next() < 0.3 && spec !== null && typeof spec === 'object' && !Array.isArray(spec)) spec.securityContext = { runAsNonRoot: false, seccompProfile: { type: 'Localhost', localhostProfile: 'p' } };
  return out;
}

/** The result, key order included (toStrictEqual alone would not see an order the walk made differently). */
function outcome(r: ApplyResult): string {
  return JSON.stringify({ object: r.object, allowed: r.allowed, diagnostics: r.diagnostics.map((d) => ({ code: d.code, message: d.message, severity: d.severity })) });
}

describe('ApplyConfiguration templates', () => {
  it('are taken from Object literal trees only where the patch keys are known and enumerate in order', () => {
    expect(applyConfigurationTemplate('Object{spec: Object.spec{nodeSelector: {"b": "x", "a": y}}}')).toEqual({
      keys: ['spec'],
      children: [{ keys: ['nodeSelector'], children: [{ keys: ['b', 'a'], children: [undefined, undefined], items: [undefined, undefined] }], items: [undefined] }],
      items: [undefined],
    });
    expect(applyConfigurationTemplate('Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name})}}')?.children[0]?.items[0]).toEqual({ keys: ['name'], children: [undefined], items: [undefined] });
    // Items of two shapes take no item template; the map level keeps its own.
    expect(applyConfigurationTemplate('Object{spec: Object.spec{containers: [Object.spec.containers{name: "a"}, Object.spec.containers{image: "b"}]}}')?.children[0]?.items[0]).toBeUndefined();
    for (const text of [
      'Object{?spec: optional.none()}',
      'Object{metadata: Object.metadata{labels: {"1": "x"}}}',
      'Object{metadata: Object.metadata{labels: {"__proto__": "x"}}}',
      'Object{metadata: Object.metadata{labels: {"a": "x", "a": "y"}}}',
      'Object{metadata: Object.metadata{labels: {?"a": optional.of("x")}}}',
      'Object{metadata: Object.metadata{labels: {k: "x"}}}',
      'true ? Object{} : Object{}',
      'Object{}',
      'object',
    ]) {
      expect(applyConfigurationTemplate(text), text).toBeUndefined();
    }
  });

  it('plans merges that give the reference result over random patches of the template (applyFused with and without the plan)', () => {
    const known = kindSchema({ group: '', version: 'v1', kind: 'Pod' })!;
    const pods = makePods(20);
    const walk = new FusedWalk();
    const loopWalk = new FusedWalk(true);
    let planned = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed * 7);
      const names = ((pods[seed % 20]!.spec as JsonObject).containers as JsonObject[]).map((c) => c.name!);
      const shape = new PatchShape(applyConfigurationTemplate('Object{metadata: Object.metadata{labels: {"a": x, "b": y}}, spec: Object.spec{containers: l.map(c, Object.spec.containers{name: c.name, image: "i"})}}')!);
      const leaf = (): JsonValue => (next() < 0.7 ? 'v' : pick(next, ['w', 7, null, { k: 'v' }, ['x']] as JsonValue[]));
      const patch: JsonObject = {
        metadata: { labels: { a: leaf(), b: 'v' } },
        spec: { containers: (next() < 0.8 ? names : ['z', ...names]).map((name) => ({ name, image: 'i' })) },
      };
      // A patch that lacks a key of its template: the walk must give up rather than trust the template.
      if (next() < 0.1) delete (patch.spec as JsonObject).containers;
      const live = livePod(pods[seed % 20]!, next);
      const before = JSON.stringify(live);
      const reference = applyStructuredMergeDiff(known.schema, known.typeRef, live, patch, { atomicGuard: true, keepEqual: true });
      const generic = applyFused(known.schema, known.typeRef, live, patch, new CheckedSubtrees(known.schema), undefined, walk);
      const withPlan = applyFused(known.schema, known.typeRef, live, patch, new CheckedSubtrees(known.schema), undefined, walk, shape);
      // The plan's generated merge (fused-plan-code.ts) against the walk's loop over the same plan.
      const byLoop = applyFused(known.schema, known.typeRef, live, patch, new CheckedSubtrees(known.schema), undefined, loopWalk, shape);
      expect(JSON.stringify(withPlan), `seed ${seed}: generated as the loop`).toBe(JSON.stringify(byLoop));
      expect(JSON.stringify(live), `seed ${seed}: input left as it was`).toBe(before);
      if (!('containers' in (patch.spec as JsonObject))) expect(withPlan, `seed ${seed}: key missing`).toBeUndefined();
      if (withPlan === undefined) continue;
      planned++;
      expect(reference.ok, `seed ${seed}`).toBe(true);
      if (reference.ok) expect(JSON.stringify(withPlan), `seed ${seed}`).toBe(JSON.stringify(reference.value));
      expect(JSON.stringify(withPlan), `seed ${seed}: as the generic walk`).toBe(JSON.stringify(generic));
    }
    expect(planned).toBeGreaterThan(100);
  });

  it('give the reference result for random Object literal expressions over random Pods, generated and interpreted', () => {
    const pods = makePods(40);
    const allowed = { yes: 0, no: 0 };
    for (let seed = 1; seed <= 250; seed++) {
      const next = random(seed * 31);
      const expressions = Array.from({ length: 1 + Math.floor(next() * 3) }, () => expression(next));
      const policies = policyOf(expressions);
      for (let k = 0; k < 3; k++) {
        const object = k === 0 ? pods[seed % 40]! : livePod(pods[(seed + k) % 40]!, next);
        const request = { object, operation: 'CREATE' as const };
        const before = JSON.stringify(object);
        const label = `seed ${seed}.${k}: ${expressions.join(' ; ')}`;
        const fused = apply(policies, request, { trace: false, patch: false, runtime: FUSED });
        expect(JSON.stringify(object), `${label}: input mutated`).toBe(before);
        const interpreted = apply(policies, request, { trace: false, patch: false, runtime: FUSED, interpret: true });
        const reference = apply(policies, request, { trace: false, patch: false, runtime: REFERENCE });
        const referenceInterpreted = apply(policies, request, { trace: false, patch: false, runtime: REFERENCE, interpret: true });
        expect(outcome(fused), label).toBe(outcome(reference));
        expect(outcome(interpreted), `${label} (interpreted)`).toBe(outcome(reference));
        expect(outcome(referenceInterpreted), `${label} (reference interpreted)`).toBe(outcome(reference));
        allowed[fused.allowed && fused.diagnostics.length === 0 ? 'yes' : 'no']++;
      }
    }
    // Both outcomes are exercised: patches that merge, and patches that do not type or whose expression fails.
    expect(allowed.yes).toBeGreaterThan(150);
    expect(allowed.no).toBeGreaterThan(50);
  });
});
