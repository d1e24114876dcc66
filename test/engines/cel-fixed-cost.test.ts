/**
 * What the CEL engine does once instead of per evaluation (issue 17: the fixed cost of an evaluated
 * expression): the outcome of a program that reads none of its activation (Program.staticJson), the
 * `variables` view of one name, the interpreter's call into the engine (ExprProgram). Differential tests:
 * the engine against the same engine evaluating every program through its activation (`general`), on the
 * same compiled functions called with scopes of different requests and variables, interleaved, with cost
 * limits that stop them; and MutatingAdmissionPolicies run through `apply` with either engine.
 */
import { describe, expect, it } from 'vitest';
import { createCelEngine } from '../../src/engines/cel.js';
import type { CompiledExpr, ExprOutcome, ExprScope } from '../../src/interpreter/engines.js';
import { evalFailure } from '../../src/interpreter/failure.js';
import { apply } from '../../src/interpreter/index.js';
import type { JsonValue } from '../../src/ir/json.js';
import { createRuntime } from '../../src/runtime/create.js';
import { parse, policy, PODS } from '../dialects/map/support.js';

const origin = { file: 't.yaml', line: 1, col: 1, endLine: 1, endCol: 2, dialect: 'map' };

/** Programs that read nothing (constant outcomes, failures among them) and programs that read their activation. */
const EXPRESSIONS = [
  '[]',
  '[1, 2]',
  '{"a": [1], "b": [2]}',
  '[b"abc"]',
  '[duration("1s")]',
  '[1.0/0.0]',
  '1 + 2',
  '"x"',
  'Object{metadata: Object.metadata{labels: {"a": "b"}}}',
  'Object{spec: Object.metadata{}}',
  '[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]',
  '[JSONPatch{op: "add", path: "/a", value: Object.spec{}}, JSONPatch{op: "remove", path: "/b"}]',
  '[JSONPatch{op: 1, path: "/a"}]',
  '[[], [1]]',
  'object.metadata.name == "p1" ? [JSONPatch{op: "add", path: "/metadata/labels/a", value: variables.tier}] : []',
  'Object{metadata: Object.metadata{labels: {"tier-seen": variables.tier}}}',
  'variables.tier + "/" + string(variables.multi)',
  'variables.broken',
  'object.spec.containers.map(c, c.name)',
  'request.operation',
];

const OBJECTS: JsonValue[] = [
  { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p1', labels: { tier: 'backend' } }, spec: { containers: [{ name: 'a' }, { name: 'b' }] } },
  { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p2' }, spec: { containers: [] } },
  { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'n' } },
];

/** The scope of request `i`: its object, and variables computed from it at each read, as lazy bindings are. */
function scopeOf(i: number): ExprScope {
  const object = OBJECTS[i % OBJECTS.length]!;
  const labels = (object as { metadata: { labels?: Record<string, string> } }).metadata.labels;
  const vars: Record<string, () => JsonValue> = {
    tier: () => labels?.['tier'] ?? `none-${i}`,
    multi: () => i % 2 === 0,
    broken: () => {
      throw evalFailure('TM3004', `boom ${i}`, origin);
    },
  };
  return {
    object,
    oldObject: null,
    request: { operation: i % 2 === 0 ? 'CREATE' : 'UPDATE', object },
    params: null,
    namespaceObject: null,
    get vars(): Record<string, JsonValue> {
      throw new Error('the engine should look variables up by name');
    },
    lookup(name: string) {
      const compute = vars[name];
      return compute === undefined ? undefined : { get value() { return compute(); } };
    },
  };
}

function compiled(text: string, costLimit: number | undefined, general: boolean): CompiledExpr {
  const r = createCelEngine({ costLimit, general }).compile({ text, origin });
  if (!r.ok) throw new Error(`${text}: ${r.diagnostics[0]!.message}`);
  return r.fn;
}

/** An outcome as data (the value, or the diagnostic), including what toEqual does not see: key order. */
function shown(r: ExprOutcome): string {
  return JSON.stringify(r.ok ? { value: r.value } : { diagnostic: r.diagnostic });
}

describe('CEL engine: fixed cost per evaluation', () => {
  it('agrees with the general evaluation on every request, interleaved, whatever the cost limit', () => {
    for (const costLimit of [undefined, 0, 5, 10, 39, 40, 100]) {
      const fast = EXPRESSIONS.map((text) => compiled(text, costLimit, false));
      const general = EXPRESSIONS.map((text) => compiled(text, costLimit, true));
      for (let i = 0; i < 6; i++) {
        const scope = scopeOf(i);
        EXPRESSIONS.forEach((text, k) => {
          expect(shown(fast[k]!(scope)), `${text} (limit ${costLimit}, request ${i})`).toBe(shown(general[k]!(scope)));
        });
      }
    }
  });

  it('hands out one frozen value for a program that reads nothing, to every request', () => {
    const fn = compiled('[JSONPatch{op: "add", path: "/a", value: {"b": [1]}}]', undefined, false);
    const first = fn(scopeOf(0));
    const second = fn(scopeOf(1));
    expect(first.ok && second.ok).toBe(true);
    if (!first.ok || !second.ok) return;
    expect(second.value).toBe(first.value);
    expect(Object.isFrozen(first.value)).toBe(true);
    expect(Object.isFrozen((first.value as { value: { b: unknown[] } }[])[0]!.value.b)).toBe(true);
  });

  it('reports a cost limit a program that reads nothing exceeds, at every evaluation', () => {
    const fn = compiled('[1, 2]', 5, false);
    for (let i = 0; i < 3; i++) {
      const r = fn(scopeOf(i));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.diagnostic).toMatchObject({ code: 'TM5004', dialect: 'map' });
    }
  });
});

/** Variables that change between mutations, constant mutations among them, errors of a variable. */
const POLICY = policy(
  'fixed-cost',
  `${PODS}
variables:
- name: tier
  expression: 'has(object.metadata.labels.tier) ? object.metadata.labels.tier : "none"'
- name: count
  expression: 'size(object.metadata.labels)'
- name: broken
  expression: 'object.metadata.labels.missing'
reinvocationPolicy: Never
mutations:
- patchType: JSONPatch
  jsonPatch:
    expression: '[]'
- patchType: JSONPatch
  jsonPatch:
    expression: '[JSONPatch{op: "add", path: "/metadata/labels/seen-1", value: variables.tier + "-" + string(variables.count)}]'
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: 'Object{metadata: Object.metadata{labels: {"tier": "changed"}}}'
- patchType: JSONPatch
  jsonPatch:
    expression: '[]'
- patchType: ApplyConfiguration
  applyConfiguration:
    expression: 'Object{metadata: Object.metadata{labels: {"seen-2": variables.tier + "-" + string(variables.count)}}}'
- patchType: JSONPatch
  jsonPatch:
    expression: 'object.metadata.name == "fails" ? [JSONPatch{op: "add", path: "/x", value: variables.broken}] : []'
`,
);

describe('MutatingAdmissionPolicy with the fixed-cost engine', () => {
  it('applies as with the general engine: variables re-read per mutation, constants, errors', () => {
    const parsed = parse(POLICY);
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const fast = createRuntime();
    const general = createRuntime({ expressions: { 'cel-kubernetes': createCelEngine({ general: true }) } });
    const pods = ['a', 'b', 'fails', 'c'].map((name, i): JsonValue => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', labels: i % 2 === 0 ? { app: 'x', tier: 'backend' } : ({ app: 'y' } as Record<string, string>) },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    }));
    const results = pods.map((object) => [fast, general].map((runtime) => apply(parsed.policies, { object, operation: 'CREATE' }, { runtime, trace: false })));
    for (const [a, b] of results) expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    // The variables were read again after the third mutation changed the label they read.
    const labels = (results[0]![0]!.object as { metadata: { labels: Record<string, string> } }).metadata.labels;
    expect(labels).toMatchObject({ 'seen-1': 'backend-2', tier: 'changed', 'seen-2': 'changed-3' });
    expect(results[2]![0]!.allowed).toBe(false);
  });
});
