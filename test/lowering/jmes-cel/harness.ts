/**
 * Differential harness: a compiled expression is evaluated by transmute's CEL engine (the MAP or MutatingPolicy
 * environment) and the JMESPath by transmute's Kyverno JMESPath engine, on the same documents; they must both
 * fail or give the same JSON. A CEL failure raised by a deliberate guard (message `transmute: ...`) is accepted
 * only when the compilation returned notes (the declared assumption it guards).
 */
import { compile, toJson } from '../../../src/cel/index.js';
import { evaluateConditions } from '../../../src/dialects/kyverno/preconditions.js';
import { substituteString } from '../../../src/dialects/kyverno/variables.js';
import type { JsonValue } from '../../../src/ir/json.js';
import { MPOL_VARIABLES } from '../../../src/dialects/kyverno-mpol/cel-engine.js';
import { compileJmes } from '../../../src/jmespath/index.js';
import { GUARD_MARKER } from '../../../src/lowering/jmes-cel/frag.js';
import { conditionsToCel, fieldType, itemType, jmesToCel, objectTypeOf, T, templateToCel, type Binding, type CelTarget, type Compiled, type JmesCelScope, type Refusal, type Ty } from '../../../src/lowering/jmes-cel/index.js';

export const MAP_ENV_VARIABLES = ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'variables', 'authorizer'];
/** The foreach loop variables the test scope binds element/elementIndex to. */
export const LOOP_VARIABLES = ['e', 'i'];

export const TARGETS: { name: string; target: CelTarget }[] = [
  { name: 'map 1.36', target: { env: 'map' } },
  { name: 'map 1.32', target: { env: 'map', k8sVersion: '1.32' } },
  { name: 'kyverno-mpol', target: { env: 'kyverno-mpol' } },
];

const REQUEST: Binding = {
  fields: {
    object: { cel: 'object' },
    oldObject: { cel: 'oldObject' },
    operation: { cel: 'request.operation' },
    namespace: { cel: 'request.namespace' },
    name: { cel: 'request.name' },
    kind: { cel: 'request.kind' },
    userInfo: { cel: 'request.userInfo' },
  },
};

/** The scope a MAP caller passes inside a foreach with a context variable `foo`. */
export const SCOPE: JmesCelScope = {
  root(name: string): Binding | undefined {
    switch (name) {
      case 'request':
        return REQUEST;
      case 'element':
        return { cel: 'e' };
      case 'elementIndex':
        return { cel: 'i' };
      case 'foo':
        return { cel: 'variables.foo' };
      default:
        return undefined;
    }
  },
};

/** One document set: the request object, plus what the loop and context variables hold. */
export interface Doc {
  name: string;
  object: unknown;
  element?: unknown;
  foo?: unknown;
}

const REQUEST_FIELDS = {
  operation: 'CREATE',
  namespace: 'prod',
  name: 'web-1',
  kind: { group: '', version: 'v1', kind: 'Pod' },
  userInfo: { username: 'system:serviceaccount:prod:builder', uid: 'u1', groups: ['system:serviceaccounts', 'dev'] },
};

export function jmesContext(d: Doc): Record<string, unknown> {
  return {
    request: { ...REQUEST_FIELDS, object: d.object, oldObject: null },
    element: d.element ?? null,
    elementIndex: 1,
    foo: d.foo ?? null,
  };
}

export function celActivation(d: Doc): Record<string, unknown> {
  return {
    object: d.object,
    oldObject: null,
    request: REQUEST_FIELDS,
    namespaceObject: null,
    params: null,
    variables: { foo: d.foo ?? null },
    e: d.element ?? null,
    i: 1,
  };
}

export type Outcome = { ok: true; json: string } | { ok: false; message: string };

/** JSON with sorted keys (numbers are JS numbers on both sides, so ints and floats compare as JSON). */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v === undefined ? null : v);
}

export function runJmes(expression: string, ctx: unknown): Outcome {
  const p = compileJmes(expression);
  if (!p.ok) return { ok: false, message: p.diagnostics[0]!.message };
  const r = p.value.search(ctx);
  return r.ok ? { ok: true, json: canonical(r.value) } : { ok: false, message: r.error.message };
}

export function celOptions(target: CelTarget): Parameters<typeof compile>[1] {
  if (target.env === 'kyverno-mpol') return { variables: [...MPOL_VARIABLES, ...LOOP_VARIABLES], extraLibraries: ['kyverno'] };
  return { variables: [...MAP_ENV_VARIABLES, ...LOOP_VARIABLES], k8sVersion: target.k8sVersion };
}

/** Compiles the CEL in the target's environment; a compile error is returned as a string. */
export function compileCel(cel: string, target: CelTarget): ReturnType<typeof compile> {
  return compile(cel, celOptions(target));
}

export function runCel(cel: string, target: CelTarget, activation: Record<string, unknown>): Outcome {
  const p = compileCel(cel, target);
  if (!p.ok) return { ok: false, message: `COMPILE: ${p.diagnostics[0]!.message}` };
  const r = p.value.eval(activation, { costLimit: Infinity });
  if (!r.ok) return { ok: false, message: r.error };
  try {
    return { ok: true, json: canonical(toJson(r.value)) };
  } catch (e) {
    return { ok: false, message: String(e) };
  }
}

/** How the differential runs ended: same value, both failed, or a noted guard failed where Kyverno had a value. */
export const TALLY = { sameValue: 0, bothFail: 0, guarded: 0 };

/** Why the two outcomes disagree, or undefined when they agree. */
export function disagreement(kyverno: Outcome, cel: Outcome, compiled: Compiled): string | undefined {
  if (!cel.ok && cel.message.startsWith('COMPILE:')) return cel.message;
  if (kyverno.ok && cel.ok) {
    if (kyverno.json !== cel.json) return `Kyverno ${kyverno.json}, CEL ${cel.json}`;
    TALLY.sameValue++;
    return undefined;
  }
  if (!kyverno.ok && !cel.ok) {
    TALLY.bothFail++;
    return undefined;
  }
  if (!cel.ok && cel.message.includes(GUARD_MARKER) && compiled.notes.length > 0) {
    TALLY.guarded++;
    return undefined;
  }
  return kyverno.ok ? `Kyverno ${kyverno.json}, CEL error ${(cel as { message: string }).message}` : `Kyverno error ${kyverno.message}, CEL ${(cel as { json: string }).json}`;
}

export function isRefusal(r: Compiled | Refusal): r is Refusal {
  return !r.ok;
}

/** Kyverno's substitution environment over the JMESPath engine (src/dialects/kyverno/variables.ts). */
export function substitutionEnv(ctx: unknown): { isDelete: boolean; query(e: string): { ok: true; value: unknown } | { ok: false; message: string; notFound: boolean } } {
  return {
    isDelete: false,
    query(expression: string) {
      const p = compileJmes(expression);
      if (!p.ok) return { ok: false, message: p.diagnostics[0]!.message, notFound: false };
      const r = p.value.search(ctx);
      return r.ok ? { ok: true, value: r.value } : { ok: false, message: r.error.message, notFound: r.error.kind === 'NotFound' };
    },
  };
}

// ------------------------------------------------------------------------------------------ typed scope

/** `object` typed as a Pod from the built-in schema, `element` as one of its containers, `elementIndex` a small int. */
export const POD_TYPE: Ty = objectTypeOf([{ group: '', version: 'v1', kind: 'Pod' }]);
export const CONTAINER_TYPE: Ty = itemType(fieldTypeOf(fieldTypeOf(POD_TYPE, 'spec'), 'containers'));

function fieldTypeOf(t: Ty, name: string): Ty {
  return t.k === 'map' ? fieldType(t, name).ty : T.dyn;
}

const TYPED_REQUEST: Binding = { fields: { ...(REQUEST as { fields: Record<string, Binding> }).fields, object: { cel: 'object', type: POD_TYPE } } };

/** The scope a MAP caller passes with the types it knows: the matched kind's object, the foreach element. */
export const TYPED_SCOPE: JmesCelScope = {
  root(name: string): Binding | undefined {
    switch (name) {
      case 'request':
        return TYPED_REQUEST;
      case 'element':
        return { cel: 'e', type: CONTAINER_TYPE };
      case 'elementIndex':
        return { cel: 'i', type: T.smallInt };
      default:
        return SCOPE.root(name);
    }
  },
};

// ------------------------------------------------------------------------------------------ differential runs

/** Runs compiled CEL against Kyverno's own outcome on every document; throws on the first disagreement. */
function agree(c: Compiled | Refusal, target: CelTarget, docs: readonly Doc[], kyverno: (ctx: unknown) => Outcome): void {
  if (!c.ok) throw new Error(`refused (${c.class}): ${c.why}`);
  const compiled = compileCel(c.cel, target);
  if (!compiled.ok) throw new Error(`CEL does not compile: ${compiled.diagnostics[0]!.message}\n${c.cel}`);
  for (const d of docs) {
    const why = disagreement(kyverno(jmesContext(d)), runCel(c.cel, target, celActivation(d)), c);
    if (why !== undefined) throw new Error(`document "${d.name}": ${why}\nCEL: ${c.cel}`);
  }
}

/** A JMESPath expression against Kyverno's JMESPath. */
export function differential(expr: string, scope: JmesCelScope, target: CelTarget, docs: readonly Doc[]): void {
  agree(jmesToCel(expr, scope, target), target, docs, (ctx) => runJmes(expr, ctx));
}

/** A `{{ }}` string against Kyverno's substitution (src/dialects/kyverno/variables.ts). */
export function templateDifferential(text: string, scope: JmesCelScope, target: CelTarget, docs: readonly Doc[]): void {
  agree(templateToCel(text, scope, target), target, docs, (ctx) => {
    const r = substituteString(text, substitutionEnv(ctx));
    return r.ok ? { ok: true, json: canonical(r.value) } : { ok: false, message: r.message };
  });
}

/** A conditions block against Kyverno's evaluation (src/dialects/kyverno/preconditions.ts). */
export function conditionsDifferential(block: unknown, scope: JmesCelScope, target: CelTarget, docs: readonly Doc[]): void {
  agree(conditionsToCel(block, scope, target), target, docs, (ctx) => {
    const r = evaluateConditions(block as JsonValue, substitutionEnv(ctx));
    return r.ok ? { ok: true, json: canonical(r.value) } : { ok: false, message: r.message };
  });
}
