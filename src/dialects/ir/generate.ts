/**
 * Writes IR policies as `transmute.dev/v1alpha1` `Policy` documents: the exact inverse of parse.ts.
 * Output is deterministic: fields in a fixed order, defaults (an everything-match, empty guard lists) left out.
 */
import type { JsonObject, JsonValue } from '../../ir/json.js';
import type { MatchSpec } from '../../ir/match.js';
import type { Guard, JsonPatchStep, Op, Policy, Rule, Semantics, Value } from '../../ir/nodes.js';
import { printPath } from '../../ir/path-text.js';
import { isPath, matchToJson, templateAsString } from '../../ir/print.js';
import { toYamlDocuments } from '../../io/yaml-dump.js';
import type { GenerateResult } from '../dialect.js';
import { IR_API_VERSION, IR_KIND } from './parse.js';

export function generateIr(policies: readonly Policy[]): GenerateResult {
  const documents = policies.map(policyToDoc);
  return { documents, text: toYamlDocuments(documents), diagnostics: [] };
}

export function policyToDoc(p: Policy): JsonObject {
  const spec: JsonObject = { semantics: semanticsToJson(p.semantics) };
  if (!isDefaultMatch(p.match)) spec.match = matchToJson(p.match);
  if (p.lets && p.lets.length > 0) spec.lets = p.lets.map(opToJson);
  if (p.guards.length > 0) spec.guards = p.guards.map(guardToJson);
  spec.rules = p.rules.map(ruleToJson);
  return { apiVersion: IR_API_VERSION, kind: IR_KIND, metadata: { name: p.id }, spec };
}

function isDefaultMatch(m: MatchSpec): boolean {
  return m.globs === 'wildcard' && m.any === undefined && m.all === undefined && m.exclude === undefined;
}

function semanticsToJson(s: Semantics): JsonObject {
  const out: JsonObject = { order: s.order };
  if (s.maxPasses !== undefined) out.maxPasses = s.maxPasses;
  if (s.reinvocation !== undefined) out.reinvocation = s.reinvocation;
  if (s.failurePolicy !== undefined) out.failurePolicy = s.failurePolicy;
  if (s.applyRules !== undefined) out.applyRules = s.applyRules;
  if (s.namespace !== undefined) out.namespace = s.namespace;
  return out;
}

function ruleToJson(r: Rule): JsonObject {
  const out: JsonObject = { name: r.name };
  if (r.match) out.match = matchToJson(r.match);
  if (r.guards.length > 0) out.guards = r.guards.map(guardToJson);
  out.body = r.body.map(opToJson);
  return out;
}

/** `value: <json>` for a literal, `valueFrom: {...}` otherwise, merged into `into`. */
function putValue(into: JsonObject, v: Value): JsonObject {
  if (v.kind === 'literal') into.value = v.json;
  else into.valueFrom = valueFromToJson(v);
  return into;
}

function putValues(into: JsonObject, vs: readonly Value[]): JsonObject {
  if (vs.every((v) => v.kind === 'literal')) into.values = vs.map((v) => (v as { json: JsonValue }).json);
  else into.valuesFrom = vs.map(valueFromToJson);
  return into;
}

export function valueFromToJson(v: Value): JsonObject {
  switch (v.kind) {
    case 'literal':
      return { value: v.json };
    case 'ref':
      return { ref: printPath(v.path) };
    case 'fromMetadata':
      return { fromMetadata: v.field };
    case 'templated':
      return { templated: { language: v.language, value: v.json } };
    case 'cel':
      return { cel: v.expr.text };
    case 'jmes':
      return { jmes: v.expr.text };
    case 'template': {
      const text = templateAsString(v.parts);
      return { template: text ?? v.parts.map((p) => (typeof p === 'string' ? p : { jmes: p.jmes })) };
    }
    case 'external': {
      const ext: JsonObject = { provider: v.provider, source: v.source, failurePolicy: v.failurePolicy };
      if (v.default !== undefined) ext.default = v.default;
      return { external: ext };
    }
  }
}

export function guardToJson(g: Guard): JsonObject {
  switch (g.kind) {
    case 'exists':
    case 'notExists':
      return { [g.kind]: printPath(g.path) };
    case 'eq':
    case 'neq':
      return putValue({ [g.kind]: printPath(g.path) }, g.value);
    case 'in':
    case 'notIn':
      return putValues({ [g.kind]: printPath(g.path) }, g.values);
    case 'match':
      return { match: printPath(g.path), pattern: g.pattern };
    case 'and':
    case 'or':
      return { [g.kind]: g.args.map(guardToJson) };
    case 'not':
      return { not: guardToJson(g.arg) };
    case 'const':
      return { const: g.value };
    case 'cel':
    case 'jmes':
      return { [g.kind]: g.expr.text };
  }
}

function stepToJson(s: JsonPatchStep): JsonObject {
  const out: JsonObject = { op: s.op, path: s.path };
  if (s.from !== undefined) out.from = s.from;
  if (s.value !== undefined) putValue(out, s.value);
  return out;
}

export function opToJson(op: Op): JsonObject {
  switch (op.kind) {
    case 'set':
      return putValue({ set: printPath(op.path) }, op.value);
    case 'remove':
      return { remove: printPath(op.path) };
    case 'setMembers':
      return putValues({ setMembers: printPath(op.path), mode: op.mode }, op.values);
    case 'merge':
      return putValue({ merge: printPath(op.path), strategy: op.strategy }, op.value);
    case 'image': {
      const out: JsonObject = { image: printPath(op.path) };
      if (op.domain !== undefined) out.domain = op.domain;
      if (op.repo !== undefined) out.repo = op.repo;
      if (op.tag !== undefined) out.tag = op.tag;
      return out;
    }
    case 'jsonPatch':
      return op.stepsFrom
        ? { jsonPatch: op.steps.map(stepToJson), stepsFrom: valueFromToJson(op.stepsFrom), profile: op.profile }
        : { jsonPatch: op.steps.map(stepToJson), profile: op.profile };
    case 'when': {
      const out: JsonObject = { when: guardToJson(op.guard), then: op.then.map(opToJson) };
      if (op.else) out.else = op.else.map(opToJson);
      return out;
    }
    case 'forEach': {
      const out: JsonObject = isPath(op.list) ? { forEach: printPath(op.list) } : { forEachFrom: valueFromToJson(op.list) };
      out.as = op.bind;
      if (op.indexBind !== undefined) out.index = op.indexBind;
      out.order = op.order;
      out.body = op.body.map(opToJson);
      return out;
    }
    case 'let':
      return putValue(op.lazy ? { let: op.name, lazy: true } : { let: op.name }, op.value);
    case 'fail':
      return { fail: op.message };
  }
}
