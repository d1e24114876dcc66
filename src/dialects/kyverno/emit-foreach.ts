/**
 * Rule bodies in the shapes the Kyverno parser produces (parse.ts, patches.ts, foreach.ts, context.ts,
 * preconditions.ts), written back as the Kyverno constructs they came from: context entries, preconditions,
 * a patch, or `foreach` entries. This is the inverse of the parser, so Kyverno → IR → Kyverno keeps the
 * policy; a body of another shape is left to the path-op emitter or reported.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../ir/json.js';
import type { ForEachOp, Guard, JsonPatchOp, LetOp, Op, Value } from '../../ir/nodes.js';
import { jsonPatchText, type PatchStep } from './emit-json-patch.js';
import { readOpaque } from './opaque.js';
import { PATCH_VARIABLE } from './patches.js';

export interface NativeBody {
  context?: JsonObject[];
  preconditions?: JsonValue;
  mutate: JsonObject;
}

/** The preconditions block an opaque `kyverno_conditions(...)` guard carries. */
export function conditionsOf(g: Guard): JsonValue | undefined {
  if (g.kind !== 'jmes') return undefined;
  const o = readOpaque(g.expr.text);
  return o?.kind === 'conditions' ? o.json : undefined;
}

function contextEntry(l: LetOp): JsonObject | string {
  if (l.value.kind === 'literal') return { name: l.name, variable: { value: l.value.json } };
  if (l.value.kind === 'jmes') {
    const o = readOpaque(l.value.expr.text);
    if (o?.kind === 'context' && isJsonObject(o.json) && isJsonObject(o.json.variable)) return { name: l.name, variable: o.json.variable };
    if (o?.kind === 'context') return `the context entry ${l.name}, which needs a cluster and had no offline value`;
  }
  return `a variable ${l.name} of kind ${l.value.kind}`;
}

function isRoot(op: { path: { root: string; segments: unknown[] } }): boolean {
  return op.path.root === 'object' && op.path.segments.length === 0;
}

function literalSteps(op: JsonPatchOp): PatchStep[] | string {
  const out: PatchStep[] = [];
  for (const s of op.steps) {
    const step: PatchStep = { op: s.op, path: s.path };
    if (s.from !== undefined) step.from = s.from;
    if (s.value) {
      if (s.value.kind !== 'literal') return `a JSON patch value of kind ${s.value.kind}`;
      step.value = { kind: 'literal', json: s.value.json };
    }
    out.push(step);
  }
  return out;
}

/** The patch of a `mutate` block or foreach entry: one merge, one JSON patch, or `$patch` + JSON patch. */
function patchOf(ops: readonly Op[]): JsonObject | string | undefined {
  if (ops.length === 1) {
    const op = ops[0]!;
    if (op.kind === 'merge' && op.strategy === 'smp' && isRoot(op) && (op.value.kind === 'literal' || op.value.kind === 'templated')) {
      return { patchStrategicMerge: op.value.json };
    }
    if (op.kind === 'jsonPatch' && op.profile === 'kyverno') {
      if (!op.stepsFrom) {
        const steps = literalSteps(op);
        return typeof steps === 'string' ? steps : { patchesJson6902: jsonPatchText(steps) };
      }
      if (op.steps.length === 0 && op.stepsFrom.kind === 'templated') return { patches: op.stepsFrom.json };
    }
    return undefined;
  }
  if (ops.length === 2) {
    const [l, p] = ops;
    if (l!.kind === 'let' && l!.name === PATCH_VARIABLE && l!.value.kind === 'templated' && typeof l!.value.json === 'string' && p!.kind === 'jsonPatch' && p!.steps.length === 0) {
      return { patchesJson6902: l!.value.json };
    }
  }
  return undefined;
}

function isElementNullCheck(op: Op): op is Extract<Op, { kind: 'when' }> {
  if (op.kind !== 'when' || op.else?.length) return false;
  const g = op.guard;
  return g.kind === 'neq' && g.path.root === 'vars' && g.path.segments.length === 1 && g.path.segments[0]!.kind === 'field' && g.path.segments[0]!.name === 'element' && g.value.kind === 'literal' && g.value.json === null;
}

const NUMBERED = /^element(Index)?\d+$/;

/** Splits `[lets..., when(guard, work) | work...]`. */
function splitBody(ops: readonly Op[]): { lets: LetOp[]; conditions?: JsonValue; work: readonly Op[] } | string {
  const lets: LetOp[] = [];
  let i = 0;
  while (i < ops.length && ops[i]!.kind === 'let' && (ops[i] as LetOp).name !== PATCH_VARIABLE) lets.push(ops[i++] as LetOp);
  const rest = ops.slice(i);
  if (rest.length === 1 && rest[0]!.kind === 'when' && !rest[0]!.else?.length) {
    const c = conditionsOf(rest[0]!.guard);
    if (c !== undefined) return { lets, conditions: c, work: rest[0]!.then };
  }
  return { lets, work: rest };
}

function foreachEntry(op: ForEachOp): JsonObject | string {
  if (!('kind' in op.list) || (op.list as Value).kind !== 'jmes') return 'a loop over something other than a JMESPath list';
  if (op.bind !== 'element' || (op.indexBind !== undefined && op.indexBind !== 'elementIndex')) return 'a loop variable other than element/elementIndex';
  if (op.body.length !== 1 || !isElementNullCheck(op.body[0]!)) return 'a loop body that does not skip null elements as Kyverno does';
  const inner = op.body[0]!.then.filter((o) => !(o.kind === 'let' && NUMBERED.test(o.name)));
  const parts = splitBody(inner);
  if (typeof parts === 'string') return parts;
  const entry: JsonObject = { list: (op.list as Extract<Value, { kind: 'jmes' }>).expr.text };
  const context: JsonObject[] = [];
  for (const l of parts.lets) {
    const c = contextEntry(l);
    if (typeof c === 'string') return c;
    context.push(c);
  }
  let strategic = false;
  if (parts.work.length > 0 && parts.work.every((o) => o.kind === 'forEach')) {
    if (context.length || parts.conditions !== undefined) return 'a loop with a nested loop and its own context or preconditions';
    const nested: JsonObject[] = [];
    for (const o of parts.work) {
      const e = foreachEntry(o as ForEachOp);
      if (typeof e === 'string') return e;
      nested.push(e);
    }
    entry.foreach = nested;
  } else {
    const patch = patchOf(parts.work);
    if (patch === undefined) return 'a loop body with no Kyverno patch form';
    if (typeof patch === 'string') return patch;
    strategic = 'patchStrategicMerge' in patch;
    if (context.length) entry.context = context;
    if (parts.conditions !== undefined) entry.preconditions = parts.conditions;
    Object.assign(entry, patch);
  }
  const defaultOrder = strategic ? 'desc' : 'asc';
  if (op.order !== defaultOrder) {
    const ordered: JsonObject = { list: entry.list!, order: op.order === 'desc' ? 'Descending' : 'Ascending' };
    for (const k of Object.keys(entry)) if (k !== 'list') ordered[k] = entry[k]!;
    return ordered;
  }
  return entry;
}

/** A rule body in one of the parser's shapes, or undefined when it is not one, or why it cannot be written. */
export function nativeBody(body: readonly Op[], ruleConditions: JsonValue | undefined): NativeBody | string | undefined {
  const parts = splitBody(body);
  if (typeof parts === 'string') return parts;
  if (parts.conditions !== undefined && ruleConditions !== undefined) return 'two preconditions blocks on one rule';
  const conditions = parts.conditions ?? ruleConditions;
  const context: JsonObject[] = [];
  for (const l of parts.lets) {
    const c = contextEntry(l);
    if (typeof c === 'string') return c;
    context.push(c);
  }
  let mutate: JsonObject;
  if (parts.work.length > 0 && parts.work.every((o) => o.kind === 'forEach')) {
    const entries: JsonObject[] = [];
    for (const o of parts.work) {
      const e = foreachEntry(o as ForEachOp);
      if (typeof e === 'string') return e;
      entries.push(e);
    }
    mutate = { foreach: entries };
  } else {
    const patch = patchOf(parts.work);
    if (patch === undefined) return undefined;
    if (typeof patch === 'string') return patch;
    mutate = patch;
  }
  const out: NativeBody = { mutate };
  if (context.length) out.context = context;
  if (conditions !== undefined) out.preconditions = conditions;
  return out;
}
