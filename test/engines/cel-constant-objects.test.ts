/**
 * `Object.*` literals of constants are folded with their JSON made once (src/cel/values.ts ConstantCelObject),
 * `JSONPatch` literals of constants with their patch operation (ConstantJsonPatch).
 * Differential test: each expression against the same expression with one constant read from a variable of
 * the same value, which folds nothing: equal JSON, or the same error.
 */
import { describe, expect, it } from 'vitest';
import { createCelEngine } from '../../src/engines/cel.js';
import type { ExprScope } from '../../src/interpreter/engines.js';
import type { JsonValue } from '../../src/ir/json.js';

const origin = { file: 't.yaml', line: 1, col: 1, endLine: 1, endCol: 2, dialect: 'map' };

const scope: ExprScope = {
  object: { metadata: { name: 'p' } },
  oldObject: null,
  request: { operation: 'CREATE', object: { metadata: { name: 'p' } } },
  params: null,
  namespaceObject: null,
  vars: {},
  lookup(name: string) {
    const values: Record<string, JsonValue> = { s: 'proxy', n: 1, d: 0, y: 'y' };
    return name in values ? { value: values[name]! } : undefined;
  },
};

function run(text: string): unknown {
  const compiled = createCelEngine().compile({ text, origin });
  if (!compiled.ok) return { compileError: compiled.diagnostics[0]!.message };
  const r = compiled.fn(scope);
  // Twice: the second evaluation hands out the JSON made at compile time again.
  const again = compiled.fn(scope);
  expect(again).toEqual(r);
  return r.ok ? { value: r.value } : { error: r.diagnostic.message };
}

/** [folded, the same with one constant made dynamic]. */
const PAIRS: [string, string][] = [
  [
    'Object{spec: Object.spec{containers: [Object.spec.containers{name: "proxy", ports: [Object.spec.containers.ports{containerPort: 1, protocol: "TCP"}]}]}}',
    'Object{spec: Object.spec{containers: [Object.spec.containers{name: variables.s, ports: [Object.spec.containers.ports{containerPort: 1, protocol: "TCP"}]}]}}',
  ],
  [
    'Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: true, seccompProfile: Object.spec.securityContext.seccompProfile{type: "RuntimeDefault"}}}}',
    'Object{spec: Object.spec{securityContext: Object.spec.securityContext{runAsNonRoot: variables.n == 1, seccompProfile: Object.spec.securityContext.seccompProfile{type: "RuntimeDefault"}}}}',
  ],
  // A misnamed literal inside the constant: nothing is made ahead, the evaluation fails as before.
  ['Object{spec: Object.spec{x: Object.spec.y{a: 1}}}', 'Object{spec: Object.spec{x: Object.spec.y{a: variables.n}}}'],
  // A constant named correctly inside but placed under the wrong name.
  ['Object{spec: Object.wrong{a: Object.wrong.a{b: 1}}}', 'Object{spec: Object.wrong{a: Object.wrong.a{b: variables.n}}}'],
  // A value JSON cannot hold.
  ['Object{spec: Object.spec{a: Object.spec.a{b: 1.0 / 0.0}}}', 'Object{spec: Object.spec{a: Object.spec.a{b: 1.0 / double(variables.d)}}}'],
  // Maps and lists of constants inside, and a constant used twice.
  [
    'Object{metadata: Object.metadata{labels: {"a": "b"}, finalizers: ["x", "y"]}, spec: Object.spec{nodeSelector: {"k": "v"}}}',
    'Object{metadata: Object.metadata{labels: {"a": "b"}, finalizers: ["x", variables.y]}, spec: Object.spec{nodeSelector: {"k": "v"}}}',
  ],
];

describe('folded Object literals', () => {
  it('convert as the same literals built at evaluation', () => {
    for (const [folded, dynamic] of PAIRS) expect(run(folded), folded).toEqual(run(dynamic));
  });

  it('hand out the JSON made once', () => {
    const compiled = createCelEngine().compile({ text: PAIRS[0]![0], origin });
    if (!compiled.ok) throw new Error(compiled.diagnostics[0]!.message);
    const [a, b] = [compiled.fn(scope), compiled.fn(scope)];
    if (!a.ok || !b.ok) throw new Error('evaluation failed');
    expect((a.value as { spec: unknown }).spec).toBe((b.value as { spec: unknown }).spec);
  });
});

/** [folded, the same with one constant made dynamic], for `JSONPatch` literals. */
const PATCH_PAIRS: [string, string][] = [
  ['[JSONPatch{op: "add", path: "/metadata/labels/a", value: "y"}]', '[JSONPatch{op: "add", path: "/metadata/labels/a", value: variables.y}]'],
  // A literal `value: null`, `from` empty (left out) and set, no value at all.
  [
    '[JSONPatch{op: "test", path: "/a", value: null}, JSONPatch{op: "move", from: "", path: "/b"}, JSONPatch{op: "copy", from: "/x", path: "/c"}, JSONPatch{op: "remove", path: "/d"}]',
    '[JSONPatch{op: "test", path: "/a", value: null}, JSONPatch{op: "move", from: "", path: "/b"}, JSONPatch{op: "copy", from: "/x", path: variables.s}, JSONPatch{op: "remove", path: "/d"}]',
  ],
  // Maps, lists and an Object literal as values.
  [
    '[JSONPatch{op: "add", path: "/spec/tolerations", value: [{"key": "k", "operator": "proxy"}]}, JSONPatch{op: "add", path: "/spec/securityContext", value: Object.spec.securityContext{runAsNonRoot: true}}]',
    '[JSONPatch{op: "add", path: "/spec/tolerations", value: [{"key": "k", "operator": variables.s}]}, JSONPatch{op: "add", path: "/spec/securityContext", value: Object.spec.securityContext{runAsNonRoot: variables.n == 1}}]',
  ],
  // A value JSON cannot hold, and a misnamed Object literal in the value.
  ['[JSONPatch{op: "add", path: "/a", value: 1.0 / 0.0}]', '[JSONPatch{op: "add", path: "/a", value: 1.0 / double(variables.d)}]'],
  ['[JSONPatch{op: "add", path: "/a", value: Object.spec{x: Object.spec.y{a: 1}}}]', '[JSONPatch{op: "add", path: "/a", value: Object.spec{x: Object.spec.y{a: variables.n}}}]'],
];

describe('folded JSONPatch literals', () => {
  it('give the operations of the same literals built at evaluation', () => {
    for (const [folded, dynamic] of PATCH_PAIRS) {
      const [a, b] = [run(folded), run(dynamic)];
      // The dynamic one reads `variables.s` ("proxy") where the folded one has "/c".
      expect(JSON.stringify(a).replace('"/c"', '"proxy"'), folded).toEqual(JSON.stringify(b));
    }
  });

  it('hand out the operation made once', () => {
    const compiled = createCelEngine().compile({ text: PATCH_PAIRS[0]![0], origin });
    if (!compiled.ok) throw new Error(compiled.diagnostics[0]!.message);
    const [a, b] = [compiled.fn(scope), compiled.fn(scope)];
    if (!a.ok || !b.ok) throw new Error('evaluation failed');
    expect((a.value as unknown[])[0]).toBe((b.value as unknown[])[0]);
  });
});
