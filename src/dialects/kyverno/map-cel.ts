/**
 * What the Kyverno generator needs to know about the CEL of a MutatingAdmissionPolicy or a MutatingPolicy
 * before writing it (the policy's CEL environment, cel-kyverno/env.ts, says which):
 * - the value of a closed expression (closed.ts), computed the way the interpreter's CEL engine computes
 *   it (kube-apiserver's or Kyverno's environment, cost limit, JSON conversion with the `Object` type-name
 *   check and the `JSONPatch` step building), or the error it always raises;
 * - the steps of a JSONPatch expression written as a list of `JSONPatch{...}` literals, each value either
 *   closed (evaluated) or compiled to JMESPath (cel-kyverno/compile.ts);
 * - whether an ApplyConfiguration always fails (a typing error of a literal patch, a wrong `Object.*`
 *   type name, a closed expression that errors): kube-apiserver then fails the mutation on every request.
 */
import type { Expr } from '../../cel/ast.js';
import { compile, parse } from '../../cel/index.js';
import { CelError } from '../../cel/values.js';
import { PER_CALL_COST_LIMIT, resultToJson } from '../../engines/cel.js';
import type { KindSchema } from '../../engines/ssa.js';
import { isJsonObject, type JsonValue } from '../../ir/json.js';
import type { Origin } from '../../ir/nodes.js';
import { applyConfigurationFailure, applyConfigurationOps, objectTree, objectTreeWithComputed } from '../../lowering/apply-configuration.js';
import { closedActivation, exprText, isClosed } from '../../lowering/cel-kyverno/closed.js';
import { CelToJmes, isTerm, type CompileEnv } from '../../lowering/cel-kyverno/compile.js';
import { MAP_ENV, type CelEnv } from '../../lowering/cel-kyverno/env.js';
import { notYet, type Refusal } from '../generate-report.js';
import type { MapStep } from './emit-map-json-patch.js';

export type Closed = { ok: true; value: JsonValue | undefined } | { ok: false; error: string };

/**
 * The JSON value of a closed expression as the interpreter's CEL engine for `env` gives it (engines/cel.ts,
 * kyverno-mpol/cel-engine.ts: compiled in the environment, evaluated under the per-call cost limit, the result
 * converted by resultToJson), or its error.
 */
export function evaluateClosedJson(text: string, _origin: Origin, env: CelEnv): Closed {
  const program = compile(text, { variables: env.variables, extraLibraries: [...env.extraLibraries] });
  if (!program.ok) return { ok: false, error: program.diagnostics[0]?.message ?? 'does not compile' };
  const r = program.value.eval(closedActivation(env), { costLimit: PER_CALL_COST_LIMIT });
  if (!r.ok) return { ok: false, error: r.error };
  try {
    return { ok: true, value: resultToJson(r.value) };
  } catch (e) {
    if (!(e instanceof CelError)) throw e;
    return { ok: false, error: e.message };
  }
}

/** The error a closed expression always raises, or undefined (not closed, or it succeeds). */
export function closedFailure(text: string, origin: Origin, env: CelEnv): string | undefined {
  const parsed = parse(text);
  if (!parsed.ok || !isClosed(parsed.value, new Set(), env)) return undefined;
  const v = evaluateClosedJson(text, origin, env);
  return v.ok ? undefined : v.error;
}

export type Steps = { steps: MapStep[] } | { alwaysFails: string } | Refusal;

function stepsOfJson(list: JsonValue | undefined): MapStep[] | Refusal {
  if (!Array.isArray(list)) return notYet('a JSON patch expression that is not a list');
  const out: MapStep[] = [];
  for (const s of list) {
    if (!isJsonObject(s) || typeof s.op !== 'string' || typeof s.path !== 'string') return notYet('a JSON patch step without op and path');
    const step: MapStep = { op: s.op, path: s.path };
    if (typeof s.from === 'string') step.from = s.from;
    if (Object.prototype.hasOwnProperty.call(s, 'value')) step.value = { kind: 'literal', json: s.value! };
    out.push(step);
  }
  return out;
}

/** A closed string field of a JSONPatch literal. */
function closedString(e: Expr, text: string, origin: Origin, env: CelEnv): string | { alwaysFails: string } | Refusal {
  if (!isClosed(e, new Set(), env)) return notYet('a JSON patch op, path or from computed from the request');
  const v = evaluateClosedJson(exprText(text, e), origin, env);
  if (!v.ok) return { alwaysFails: v.error };
  return typeof v.value === 'string' ? v.value : notYet('a JSON patch op, path or from that is not a string');
}

/**
 * The steps of a JSONPatch expression: evaluated whole when closed, else read from a list of `JSONPatch{...}`
 * literals whose op, path and from are closed and whose values are closed or compile to JMESPath.
 */
export function mapJsonPatchSteps(text: string, origin: Origin, env: CompileEnv): Steps {
  const cel = env.cel ?? MAP_ENV;
  const parsed = parse(text);
  if (!parsed.ok) return notYet('a JSON patch expression that does not parse');
  const e = parsed.value;
  if (isClosed(e, new Set(), cel)) {
    const v = evaluateClosedJson(text, origin, cel);
    if (!v.ok) return { alwaysFails: v.error };
    const steps = stepsOfJson(v.value);
    return Array.isArray(steps) ? { steps } : steps;
  }
  if (e.kind !== 'list' || e.optional.some(Boolean)) return notYet('a JSON patch expression that is not a list of JSONPatch literals');
  const out: MapStep[] = [];
  const compiler = new CelToJmes(env);
  for (const el of e.elements) {
    if (el.kind !== 'struct' || el.typeName !== 'JSONPatch') return notYet('a JSON patch list element that is not a JSONPatch literal');
    const step: Partial<MapStep> = {};
    for (const f of el.fields) {
      if (f.optional) return notYet('an optional JSONPatch field');
      if (f.name === 'op' || f.name === 'path' || f.name === 'from') {
        const s = closedString(f.value, text, origin, cel);
        if (typeof s !== 'string') return s;
        step[f.name] = s;
      } else if (f.name === 'value') {
        if (isClosed(f.value, new Set(), cel)) {
          // Converted as kube-apiserver converts it: through a one-step list, type-name check included.
          const v = evaluateClosedJson(`[JSONPatch{op: "add", path: "/", value: ${exprText(text, f.value)}}]`, origin, cel);
          if (!v.ok) return { alwaysFails: v.error };
          const first = Array.isArray(v.value) ? v.value[0] : undefined;
          if (!isJsonObject(first) || !Object.prototype.hasOwnProperty.call(first, 'value')) return notYet('a JSONPatch value that converts to nothing');
          step.value = { kind: 'literal', json: first.value! };
        } else {
          const t = compiler.compile(f.value);
          if (!isTerm(t)) return t;
          if (t.present) return notYet('an optional JSONPatch value');
          step.value = { kind: 'computed', term: t };
        }
      } else return { alwaysFails: `JSONPatch has no field ${f.name}` };
    }
    if (step.op === undefined || step.path === undefined) return notYet('a JSONPatch literal without op or path');
    // patch/json_patch.go: `from` only when non-empty.
    if (step.from === '') delete step.from;
    out.push(step as MapStep);
  }
  return { steps: out };
}

/**
 * Why an ApplyConfiguration fails on every request, or undefined when it may succeed. `kinds` are the
 * schemas of every kind the policy can mutate (undefined: not known).
 */
export function applyConfigurationAlwaysFails(text: string, origin: Origin, kinds: readonly KindSchema[] | undefined, env: CelEnv): string | undefined {
  const parsed = parse(text);
  if (!parsed.ok) return undefined;
  const e = parsed.value;
  if (isClosed(e, new Set(), env)) {
    const v = evaluateClosedJson(text, origin, env);
    if (!v.ok) return v.error;
  }
  const tree = objectTree(e);
  if (typeof tree === 'string') return /^type name /.test(tree) && wrongTypeNameAlways(e) ? `a wrong Object type name (${tree})` : undefined;
  if (!kinds || kinds.length === 0) return undefined;
  const reasons = kinds.map((k) => applyConfigurationFailure(k.schema, k.typeRef, tree));
  return reasons.every((r) => r !== undefined) ? reasons[0] : undefined;
}

/** Why an ApplyConfiguration is not a list of path writes (what the raising could not prove), for the refusal. */
export function applyConfigurationReason(text: string, origin: Origin, kinds: readonly KindSchema[] | undefined): string {
  const parsed = parse(text);
  if (!parsed.ok) return 'it does not parse';
  const tree = objectTreeWithComputed(parsed.value, text);
  if (typeof tree === 'string') return tree;
  if (!kinds || kinds.length === 0) return 'the schema of the matched kinds is not known';
  for (const k of kinds) {
    const ops = applyConfigurationOps(k.schema, k.typeRef, tree, origin);
    if (typeof ops === 'string') return ops;
  }
  return 'its writes differ between the matched kinds';
}

/** The literal `Object.*` skeleton (structs all the way down to the mismatch) is built on every evaluation. */
function wrongTypeNameAlways(e: Expr): boolean {
  return e.kind === 'struct';
}
