/**
 * CEL → JMESPath (cel-kyverno/compile.ts) and the inlining of params, variables and closed parts
 * (cel-kyverno/inline.ts), checked by evaluation: for each expression and object, the compiled JMESPath has
 * the CEL's value where the CEL succeeds, and its failure condition is true exactly where the CEL fails.
 */
import { describe, expect, it } from 'vitest';
import { compile, MAP_VARIABLES } from '../../src/cel/index.js';
import { requestValue } from '../../src/engines/cel.js';
import { kindSchema } from '../../src/engines/ssa.js';
import type { JsonObject, JsonValue } from '../../src/ir/json.js';
import { compileJmes } from '../../src/jmespath/index.js';
import type { AdmissionRequest } from '../../src/k8s/request.js';
import { celLiteral, evaluateClosed, exprText, isClosed } from '../../src/lowering/cel-kyverno/closed.js';
import { and, atom, equals, not, or, render } from '../../src/lowering/cel-kyverno/cond.js';
import { compileCelText, isTerm, type Term } from '../../src/lowering/cel-kyverno/compile.js';
import { rewriteCel } from '../../src/lowering/cel-kyverno/inline.js';
import { kindFacts } from '../../src/lowering/kind-facts.js';
import { parse } from '../../src/cel/index.js';

const deploymentSchema = kindSchema({ group: 'apps', version: 'v1', kind: 'Deployment' })!;
const ENV = { kinds: [deploymentSchema], facts: kindFacts([deploymentSchema]) };

function cel(text: string, object: JsonValue, oldObject: JsonValue | null = null): { ok: true; value: unknown } | { ok: false } {
  const p = compile(text, { variables: MAP_VARIABLES });
  if (!p.ok) throw new Error(p.diagnostics[0]!.message);
  const req: AdmissionRequest = { object, oldObject, operation: oldObject ? 'UPDATE' : 'CREATE', userInfo: { username: 'alice', groups: ['g'] }, kind: { group: 'apps', version: 'v1', kind: 'Deployment' } };
  const r = p.value.eval({ object, oldObject, params: null, request: requestValue(req), namespaceObject: null, variables: {}, authorizer: null });
  return r.ok ? { ok: true, value: r.value } : { ok: false };
}

/** The Kyverno context a `{{ }}` hole reads: `request` with the object, as the engine builds it. */
function context(object: JsonValue, oldObject: JsonValue | null = null): JsonObject {
  const request: JsonObject = { object, operation: oldObject ? 'UPDATE' : 'CREATE', userInfo: { username: 'alice', groups: ['g'] }, kind: { group: 'apps', version: 'v1', kind: 'Deployment' } };
  if (oldObject) request.oldObject = oldObject;
  return { request };
}

function jmes(expr: string, data: JsonValue): { ok: true; value: unknown } | { ok: false; error: string } {
  const p = compileJmes(expr);
  if (!p.ok) throw new Error(`${expr}: ${p.diagnostics[0]!.message}`);
  const r = p.value.search(data);
  return r.ok ? { ok: true, value: r.value } : { ok: false, error: r.error.message };
}

function compiled(text: string): Term {
  const t = compileCelText(text, ENV);
  if (!isTerm(t)) throw new Error(`${text}: ${t.why}`);
  return t;
}

/** The compiled term agrees with the CEL on `object`: same failure, same value (as JSON) otherwise. */
function agreesOn(text: string, object: JsonObject, oldObject: JsonObject | null = null): void {
  const t = compiled(text);
  const data = context(object, oldObject);
  const fails = jmes(render(t.err), data);
  expect(fails, `${text}: failure condition ${render(t.err)}`).toEqual({ ok: true, value: expect.any(Boolean) });
  const want = cel(text, object, oldObject);
  expect(fails.ok && fails.value, `${text} on ${JSON.stringify(object)}: CEL ${want.ok ? 'succeeds' : 'fails'}, condition says ${String(fails.ok && fails.value)}`).toBe(!want.ok);
  if (!want.ok) return;
  if (t.present) {
    const present = jmes(render(t.present), data);
    expect(present).toEqual({ ok: true, value: (want.value as { has: boolean }).has });
    return;
  }
  const got = jmes(t.cond ? render(t.cond) : t.j, data);
  expect(got, `${text} on ${JSON.stringify(object)}: ${t.j}`).toEqual({ ok: true, value: JSON.parse(JSON.stringify(want.value)) });
}

const D = (spec: JsonObject = {}, metadata: JsonObject = { name: 'd' }): JsonObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec });

const OBJECTS: JsonObject[] = [
  D(),
  D({ replicas: 0 }),
  D({ replicas: 3 }),
  D({ replicas: -7 }),
  D({ paused: true, replicas: 2 }),
  D({}, { name: 'd', labels: {} }),
  D({}, { name: 'd', labels: { env: 'prod', count: '41' } }),
  D({}, { name: 'd', labels: { env: '', count: '-3' } }),
  D({}, { name: 'd', labels: { count: '1e3' } }),
  D({}, { name: 'd', labels: { count: '+8' } }),
  D({ template: { spec: { securityContext: { runAsUser: 5 } } } }),
];

describe('CEL → JMESPath, value and failure on every object', () => {
  const expressions = [
    'object.spec.replicas',
    'object.spec.replicas + 100',
    'object.spec.replicas * 2 - 1',
    'object.spec.replicas % 2 == 0',
    'object.spec.replicas % 2 == 0 ? object.spec.replicas + 1 : object.spec.replicas',
    'object.spec.replicas > 1 && object.spec.paused',
    'object.spec.paused || object.spec.replicas == 2',
    '!object.spec.paused',
    "object.metadata.labels['env'] == 'prod'",
    "object.metadata.labels['env'] != 'prod'",
    'object.metadata.?labels["env"] == optional.of("prod")',
    'object.metadata.?labels["env"].orValue("none")',
    'object.metadata.?labels["env"].hasValue()',
    'object.?metadata.labels["env"].orValue("") == ""',
    'has(object.metadata.labels) && "env" in object.metadata.labels',
    'has(object.spec.template) ? has(object.spec.template.spec) : false',
    'string(int(object.?metadata.labels["count"].orValue("1")) + 1)',
    'int(object.metadata.labels["count"]) > 40',
    'object.metadata.labels["env"] + "-x"',
    'object.metadata.labels["env"].startsWith("pr")',
    'object.metadata.labels["env"] in ["prod", "dev"]',
    'object.spec.?template.?spec.?securityContext.?runAsUser.orValue(1000)',
    "request.kind.group == 'apps' && request.operation == 'CREATE'",
    'has(request.userInfo.username)',
    'object.spec.replicas == 3 || object.metadata.labels["env"] == "prod"',
    'size(object.metadata.labels) > 1',
    'object.metadata.labels["env"].size()',
  ];
  for (const text of expressions) {
    it(text, () => {
      for (const o of OBJECTS) agreesOn(text, o);
    });
  }

  it('reads the old object, which is null on CREATE', () => {
    for (const o of OBJECTS) {
      agreesOn('oldObject.spec.replicas + 1', o);
      agreesOn('oldObject.spec.replicas + 1', o, D({ replicas: 4 }));
      agreesOn('oldObject.spec.replicas + 1', o, D());
    }
  });

  it('refuses what has no exact JMESPath form', () => {
    for (const text of ['object.spec.template.spec.containers.map(c, c.name)', 'object.spec.template.spec.containers.exists(c, c.name == "a")', 'double(object.spec.replicas)', 'object.spec.replicas / 2', 'authorizer.group("").check("get").allowed()', 'namespaceObject.metadata.name', 'request.requestKind.kind']) {
      const t = compileCelText(text, ENV);
      expect(isTerm(t), text).toBe(false);
    }
  });
});

describe('conditions', () => {
  it('simplify: contradictions, absorption, implied presence, negated comparisons', () => {
    const p = atom("contains(keys(x || `{}`), 'a')");
    const eq = equals('x.a', "'v'", { implies: [p] });
    expect(and(p, not(p))).toEqual({ k: 'const', v: false });
    expect(or(p, and(p, eq))).toEqual(p);
    expect(render(and(p, eq))).toBe("x.a == 'v'");
    expect(render(not(eq))).toBe("x.a != 'v'");
    expect(render(and(not(and(p, not(eq))), not(p)))).toBe("!(contains(keys(x || `{}`), 'a'))");
  });
});

describe('inlining params, variables and closed parts', () => {
  it('folds closed parts with kube-apiserver values, keeps what reads the request', () => {
    expect(rewriteCel('variables.x + 1', undefined, new Map([['x', '10']]))).toBe('11');
    expect(rewriteCel('object.spec.replicas + int(params.data.n)', celLiteral({ data: { n: '5' } }), new Map())).toBe('object.spec.replicas + 5');
    expect(rewriteCel('"a" + jsonpatch.escapeKey("k8s.io/x~y")', undefined, new Map())).toBe('"ak8s.io~1x~0y"');
    expect(rewriteCel('(1 + 2) * object.spec.replicas', undefined, new Map())).toBe('(3) * object.spec.replicas');
  });

  it('keeps a closed part that fails whole (folding inside it could make it cheaper, and not fail)', () => {
    const heavy = '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, "x" == "x"))))))';
    expect(evaluateClosed(heavy).ok).toBe(false);
    expect(rewriteCel(heavy, undefined, new Map())).toBe(heavy);
  });

  it('renders values as literals of the same CEL type (dyn() where members differ)', () => {
    expect(celLiteral({ a: 1, b: 'x' })).toBe('{"a": dyn(1), "b": dyn("x")}');
    expect(celLiteral([1.5, -2])).toBe('[dyn(1.5), dyn((-2))]');
    for (const v of [{ a: [1, 2] }, 'q"uote', -0.25, 2 ** 60]) {
      const r = evaluateClosed(celLiteral(v)!);
      expect(r.ok && JSON.stringify(r.value)).toBe(JSON.stringify(v));
    }
  });

  it('knows closed expressions and the source text of a parenthesized operand', () => {
    const closed = parse('[1].all(x, x > 0)');
    const open = parse('[1].all(x, x > object.spec.replicas)');
    expect(closed.ok && isClosed(closed.value)).toBe(true);
    expect(open.ok && isClosed(open.value)).toBe(false);
    const text = '(a) + b';
    const e = parse(text);
    expect(e.ok && exprText(text, e.value)).toBe('(a) + b');
  });
});
