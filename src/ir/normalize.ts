/**
 * A canonical form of IR policies for comparing them in tests: two policies that mean the same thing by
 * construction (not by analysis) normalize to deep-equal values.
 * - every `origin` is removed (on nodes, paths, match specs and expressions), so the result is only for
 *   comparison and printing: its types claim origins it does not have;
 * - defaults are filled: `semantics.failurePolicy` = `fail`, `semantics.reinvocation` = `never`
 *   (what the interpreter assumes when they are absent);
 * - the match spec has the canonical key order of print.ts and no empty `exclude`;
 * - templates have no empty text parts and no adjacent text parts; an empty `else` block is dropped.
 * Literal JSON values are left exactly as they are (a literal may well contain a key named `origin`).
 */
import type { MatchSpec } from './match.js';
import type { ExprSource, Guard, JsonPatchStep, Op, Policy, Rule, Semantics, TemplatePart, Value } from './nodes.js';
import type { Path, Segment } from './path.js';
import { matchToJson } from './print.js';

type NoOrigin<T> = T extends { origin: unknown } ? Omit<T, 'origin'> : T;

export function normalizePath(p: Path): Path {
  return { root: p.root, segments: p.segments.map(normalizeSegment) };
}

function normalizeSegment(s: Segment): Segment {
  switch (s.kind) {
    case 'field':
      return s.test ? { kind: 'field', name: s.name, test: s.test } : { kind: 'field', name: s.name };
    case 'index':
      return s.test ? { kind: 'index', index: s.index, test: s.test } : { kind: 'index', index: s.index };
    case 'keyed': {
      const k = { kind: 'keyed', key: s.key, value: s.value, create: s.create } as Segment & { kind: 'keyed' };
      if (s.test) k.test = s.test;
      return k;
    }
    case 'keyedGlob':
      return s.test ? { kind: 'keyedGlob', key: s.key, test: s.test } : { kind: 'keyedGlob', key: s.key };
    default:
      return { kind: s.kind };
  }
}

function expr(e: ExprSource): ExprSource {
  return { text: e.text } as ExprSource;
}

function templateParts(parts: readonly TemplatePart[]): TemplatePart[] {
  const out: TemplatePart[] = [];
  for (const p of parts) {
    if (typeof p === 'string') {
      if (p === '') continue;
      const last = out[out.length - 1];
      if (typeof last === 'string') out[out.length - 1] = last + p;
      else out.push(p);
    } else {
      out.push({ jmes: p.jmes });
    }
  }
  return out;
}

export function normalizeValue(v: Value): Value {
  let out: NoOrigin<Value>;
  switch (v.kind) {
    case 'literal':
      out = { kind: 'literal', json: v.json };
      break;
    case 'ref':
      out = { kind: 'ref', path: normalizePath(v.path) };
      break;
    case 'fromMetadata':
      out = { kind: 'fromMetadata', field: v.field };
      break;
    case 'template':
      out = { kind: 'template', parts: templateParts(v.parts) };
      break;
    case 'templated':
      out = { kind: 'templated', language: v.language, json: v.json };
      break;
    case 'cel':
    case 'jmes':
      out = { kind: v.kind, expr: expr(v.expr) };
      break;
    case 'external': {
      const e: NoOrigin<Value> & { kind: 'external' } = { kind: 'external', provider: v.provider, source: v.source, failurePolicy: v.failurePolicy };
      if (v.default !== undefined) e.default = v.default;
      out = e;
      break;
    }
  }
  return out as Value;
}

export function normalizeGuard(g: Guard): Guard {
  let out: NoOrigin<Guard>;
  switch (g.kind) {
    case 'exists':
    case 'notExists':
      out = { kind: g.kind, path: normalizePath(g.path) };
      break;
    case 'eq':
    case 'neq':
      out = { kind: g.kind, path: normalizePath(g.path), value: normalizeValue(g.value) };
      break;
    case 'in':
    case 'notIn':
      out = { kind: g.kind, path: normalizePath(g.path), values: g.values.map(normalizeValue) };
      break;
    case 'match':
      out = { kind: 'match', path: normalizePath(g.path), pattern: g.pattern };
      break;
    case 'and':
    case 'or':
      out = { kind: g.kind, args: g.args.map(normalizeGuard) };
      break;
    case 'not':
      out = { kind: 'not', arg: normalizeGuard(g.arg) };
      break;
    case 'const':
      out = { kind: 'const', value: g.value };
      break;
    case 'cel':
    case 'jmes':
      out = { kind: g.kind, expr: expr(g.expr) };
      break;
  }
  return out as Guard;
}

function normalizeStep(s: JsonPatchStep): JsonPatchStep {
  const out = { op: s.op, path: s.path } as JsonPatchStep;
  if (s.from !== undefined) out.from = s.from;
  if (s.value !== undefined) out.value = normalizeValue(s.value);
  return out;
}

export function normalizeOp(op: Op): Op {
  let out: NoOrigin<Op>;
  switch (op.kind) {
    case 'set':
      out = { kind: 'set', path: normalizePath(op.path), value: normalizeValue(op.value) };
      break;
    case 'remove':
      out = { kind: 'remove', path: normalizePath(op.path) };
      break;
    case 'setMembers':
      out = { kind: 'setMembers', path: normalizePath(op.path), values: op.values.map(normalizeValue), mode: op.mode };
      break;
    case 'merge':
      out = { kind: 'merge', path: normalizePath(op.path), value: normalizeValue(op.value), strategy: op.strategy };
      break;
    case 'image': {
      const i: NoOrigin<Op> & { kind: 'image' } = { kind: 'image', path: normalizePath(op.path) };
      if (op.domain !== undefined) i.domain = op.domain;
      if (op.repo !== undefined) i.repo = op.repo;
      if (op.tag !== undefined) i.tag = op.tag;
      out = i;
      break;
    }
    case 'jsonPatch': {
      const j: NoOrigin<Op> & { kind: 'jsonPatch' } = { kind: 'jsonPatch', steps: op.steps.map(normalizeStep), profile: op.profile };
      if (op.stepsFrom) j.stepsFrom = normalizeValue(op.stepsFrom);
      out = j;
      break;
    }
    case 'when': {
      const w: NoOrigin<Op> & { kind: 'when' } = { kind: 'when', guard: normalizeGuard(op.guard), then: op.then.map(normalizeOp) };
      if (op.else && op.else.length > 0) w.else = op.else.map(normalizeOp);
      out = w;
      break;
    }
    case 'forEach': {
      const list = 'kind' in op.list ? normalizeValue(op.list) : normalizePath(op.list);
      const f: NoOrigin<Op> & { kind: 'forEach' } = { kind: 'forEach', list, bind: op.bind, order: op.order, body: op.body.map(normalizeOp) };
      if (op.indexBind !== undefined) f.indexBind = op.indexBind;
      out = f;
      break;
    }
    case 'let':
      // `lazy: false` is the default and is dropped.
      out = op.lazy ? { kind: 'let', name: op.name, value: normalizeValue(op.value), lazy: true } : { kind: 'let', name: op.name, value: normalizeValue(op.value) };
      break;
    case 'fail':
      out = { kind: 'fail', message: op.message };
      break;
  }
  return out as Op;
}

export function normalizeMatch(m: MatchSpec): MatchSpec {
  const json = matchToJson(m) as unknown as MatchSpec;
  if (json.exclude && json.exclude.any === undefined && json.exclude.all === undefined) delete json.exclude;
  return json;
}

function normalizeSemantics(s: Semantics): Semantics {
  const out: Semantics = { order: s.order };
  if (s.maxPasses !== undefined) out.maxPasses = s.maxPasses;
  out.reinvocation = s.reinvocation ?? 'never';
  out.failurePolicy = s.failurePolicy ?? 'fail';
  // `all` is the default; only the non-default value is kept so IR without the field compares equal.
  if (s.applyRules === 'one') out.applyRules = 'one';
  if (s.namespace !== undefined) out.namespace = s.namespace;
  return out;
}

function normalizeRule(r: Rule): Rule {
  const out = { name: r.name } as Rule;
  if (r.match) out.match = normalizeMatch(r.match);
  out.guards = r.guards.map(normalizeGuard);
  out.body = r.body.map(normalizeOp);
  return out;
}

export function normalizePolicy(p: Policy): Policy {
  return {
    id: p.id,
    match: normalizeMatch(p.match),
    ...(p.lets && p.lets.length > 0 ? { lets: p.lets.map(normalizeOp) } : {}),
    guards: p.guards.map(normalizeGuard),
    rules: p.rules.map(normalizeRule),
    semantics: normalizeSemantics(p.semantics),
  } as Policy;
}

export function normalizePolicies(policies: readonly Policy[]): Policy[] {
  return policies.map(normalizePolicy);
}
