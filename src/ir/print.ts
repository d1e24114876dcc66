/**
 * The IR text form: stable, readable, indentation-based (2 spaces). Golden files and `transmute ir` show it;
 * `parse-text.ts` reads it back, and `printPolicies(parseIrText(printPolicies(p)))` equals `printPolicies(p)`.
 *
 *   policy add-team-label
 *     semantics sequential failurePolicy=fail
 *     match {"globs": "wildcard", "any": [{"kinds": [{"kind": "Pod"}]}]}
 *     guard exists object.metadata
 *     rule add
 *       set object.metadata.labels.team!absent = "platform"
 *       when match object.metadata.name "web-*"
 *         remove object.metadata.annotations."x/y"
 *       else
 *         set object.spec.replicas = 2
 *       let lazy x = ref object.metadata.name
 *       jsonPatch evanphx-v4 from cel "[…]"
 *         add "/a" = templated kyverno {"b": "{{ x }}"}
 *
 * With `origins: true` every line of a node with an origin ends with `  @line:col`.
 */
import type { Origin } from '../diagnostics/span.js';
import type { JsonObject, JsonValue } from './json.js';
import { MATCH_CLAUSE_KEYS, type LabelSelector, type MatchClause, type MatchSpec } from './match.js';
import type { Guard, JsonPatchStep, Op, Policy, Rule, Semantics, TemplatePart, Value } from './nodes.js';
import type { Path } from './path.js';
import { PATH_ROOTS, printName, printPath } from './path-text.js';

export interface PrintOptions {
  /** End each line with `  @line:col` of its node's origin. */
  origins?: boolean;
}

const INDENT = '  ';

/** Words that would not read back as a name where a name is expected (they lex as paths). */
const RESERVED_NAMES: ReadonlySet<string> = new Set(PATH_ROOTS);

/** A policy, rule or variable name: bare when it reads back as a name, otherwise a JSON string. */
export function printIdent(name: string): string {
  return RESERVED_NAMES.has(name) ? JSON.stringify(name) : printName(name);
}

/** Compact, readable JSON on one line: `{"a": 1, "b": [1, 2]}`, keys in insertion order. */
export function printJson(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(printJson).join(', ')}]`;
  const keys = Object.keys(value);
  if (keys.length === 0) return '{}';
  return `{${keys.map((k) => `${JSON.stringify(k)}: ${printJson(value[k]!)}`).join(', ')}}`;
}

// ---------------------------------------------------------------------------------------------- values

/**
 * A template prints as one string with `{{ jmes }}` holes when that reads back to the same parts:
 * no empty or adjacent text parts, no braces pairs in the text, holes without `}}` and without
 * surrounding spaces. Otherwise it prints as an explicit list of parts.
 */
export function templateAsString(parts: readonly TemplatePart[]): string | undefined {
  let out = '';
  let prevText = false;
  for (const part of parts) {
    if (typeof part === 'string') {
      if (part === '' || prevText || part.includes('{{') || part.includes('}}')) return undefined;
      out += part;
      prevText = true;
    } else {
      const j = part.jmes;
      if (j === '' || j !== j.trim() || j.includes('}}') || j.includes('{{')) return undefined;
      out += `{{ ${j} }}`;
      prevText = false;
    }
  }
  return out;
}

export function printValue(v: Value): string {
  switch (v.kind) {
    case 'literal':
      return printJson(v.json);
    case 'ref':
      return `ref ${printPath(v.path)}`;
    case 'fromMetadata':
      return `fromMetadata ${v.field}`;
    case 'templated':
      return `templated ${v.language} ${printJson(v.json)}`;
    case 'cel':
      return `cel ${JSON.stringify(v.expr.text)}`;
    case 'jmes':
      return `jmes ${JSON.stringify(v.expr.text)}`;
    case 'template': {
      const text = templateAsString(v.parts);
      return `template ${text !== undefined ? JSON.stringify(text) : printJson(v.parts as JsonValue[])}`;
    }
    case 'external': {
      let s = `external provider=${JSON.stringify(v.provider)} source=${v.source} failurePolicy=${v.failurePolicy}`;
      if (v.default !== undefined) s += ` default=${JSON.stringify(v.default)}`;
      return s;
    }
  }
}

function printValues(values: readonly Value[]): string {
  return `[${values.map(printValue).join(', ')}]`;
}

// ---------------------------------------------------------------------------------------------- guards

export function printGuard(g: Guard): string {
  switch (g.kind) {
    case 'exists':
    case 'notExists':
      return `${g.kind} ${printPath(g.path)}`;
    case 'eq':
    case 'neq':
      return `${g.kind} ${printPath(g.path)} ${printValue(g.value)}`;
    case 'in':
    case 'notIn':
      return `${g.kind} ${printPath(g.path)} ${printValues(g.values)}`;
    case 'match':
      return `match ${printPath(g.path)} ${JSON.stringify(g.pattern)}`;
    case 'and':
    case 'or':
      return `${g.kind}(${g.args.map(printGuard).join(', ')})`;
    case 'not':
      return `not(${printGuard(g.arg)})`;
    case 'const':
      return g.value ? 'true' : 'false';
    case 'cel':
    case 'jmes':
      return `${g.kind} ${JSON.stringify(g.expr.text)}`;
  }
}

// ---------------------------------------------------------------------------------------------- match

const MATCH_KEYS = ['globs', 'any', 'all', 'exclude'] as const;
const GVK_KEYS = ['group', 'version', 'kind', 'subresource'];
const RESOURCE_KEYS = ['groups', 'versions', 'resources', 'resourceNames', 'operations', 'scope'];
const SELECTOR_KEYS = ['matchLabels', 'matchExpressions'];
const REQUIREMENT_KEYS = ['key', 'operator', 'values'];
const USER_KEYS = ['usernames', 'groups', 'roles', 'clusterRoles'];

/** Keys in `order` first, then any others in insertion order; `origin` is dropped. */
function ordered(obj: object, order: readonly string[], child?: (key: string, v: JsonValue) => JsonValue): JsonObject {
  const src = obj as JsonObject;
  const out: JsonObject = {};
  const put = (k: string) => {
    const v = src[k];
    if (v === undefined || k === 'origin') return;
    const value = child ? child(k, v) : v;
    if (k === '__proto__') Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    else out[k] = value;
  };
  for (const k of order) if (Object.prototype.hasOwnProperty.call(src, k)) put(k);
  for (const k of Object.keys(src)) if (!order.includes(k)) put(k);
  return out;
}

function orderSelector(s: LabelSelector): JsonObject {
  return ordered(s, SELECTOR_KEYS, (k, v) =>
    k === 'matchExpressions' && Array.isArray(v) ? v.map((r) => ordered(r as object, REQUIREMENT_KEYS)) : v,
  );
}

function orderClause(c: MatchClause): JsonObject {
  return ordered(c, MATCH_CLAUSE_KEYS as readonly string[], (k, v) => {
    switch (k) {
      case 'kinds':
        return Array.isArray(v) ? v.map((g) => ordered(g as object, GVK_KEYS)) : v;
      case 'resources':
        return Array.isArray(v) ? v.map((r) => ordered(r as object, RESOURCE_KEYS)) : v;
      case 'labelSelector':
      case 'namespaceSelector':
        return orderSelector(v as LabelSelector);
      case 'userInfo':
        return ordered(v as object, USER_KEYS);
      default:
        return v;
    }
  });
}

/**
 * The match spec as plain JSON in a canonical key order (declaration order of `match.ts`), without origin,
 * so that dialects that build the same spec in a different order print the same text.
 */
export function matchToJson(m: MatchSpec): JsonObject {
  const clauses = (v: JsonValue) => (Array.isArray(v) ? v.map((c) => orderClause(c as MatchClause)) : v);
  return ordered(m, MATCH_KEYS, (k, v) => {
    if (k === 'any' || k === 'all') return clauses(v);
    if (k === 'exclude') return ordered(v as object, ['any', 'all'], (_k, x) => clauses(x));
    return v;
  });
}

// ---------------------------------------------------------------------------------------------- ops and policies

class Printer {
  private readonly lines: string[] = [];

  constructor(private readonly origins: boolean) {}

  text(): string {
    return this.lines.length === 0 ? '' : `${this.lines.join('\n')}\n`;
  }

  blank(): void {
    this.lines.push('');
  }

  line(depth: number, content: string, origin?: Origin): void {
    const at = this.origins && origin ? `  @${origin.line}:${origin.col}` : '';
    this.lines.push(`${INDENT.repeat(depth)}${content}${at}`);
  }

  policy(p: Policy): void {
    this.line(0, `policy ${printIdent(p.id)}`, p.origin);
    this.line(1, printSemantics(p.semantics));
    this.line(1, `match ${printJson(matchToJson(p.match))}`, p.match.origin);
    if (p.lets) this.ops(p.lets, 1);
    for (const g of p.guards) this.line(1, `guard ${printGuard(g)}`, g.origin);
    for (const r of p.rules) this.rule(r, 1);
  }

  rule(r: Rule, depth: number): void {
    this.line(depth, `rule ${printIdent(r.name)}`, r.origin);
    if (r.match) this.line(depth + 1, `match ${printJson(matchToJson(r.match))}`, r.match.origin);
    for (const g of r.guards) this.line(depth + 1, `guard ${printGuard(g)}`, g.origin);
    this.ops(r.body, depth + 1);
  }

  ops(ops: readonly Op[], depth: number): void {
    for (const op of ops) this.op(op, depth);
  }

  op(op: Op, depth: number): void {
    switch (op.kind) {
      case 'set':
        return this.line(depth, `set ${printPath(op.path)} = ${printValue(op.value)}`, op.origin);
      case 'remove':
        return this.line(depth, `remove ${printPath(op.path)}`, op.origin);
      case 'setMembers':
        return this.line(depth, `setMembers ${printPath(op.path)} ${op.mode} ${printValues(op.values)}`, op.origin);
      case 'merge':
        return this.line(depth, `merge ${op.strategy} ${printPath(op.path)} = ${printValue(op.value)}`, op.origin);
      case 'image': {
        let s = `image ${printPath(op.path)}`;
        if (op.domain !== undefined) s += ` domain=${JSON.stringify(op.domain)}`;
        if (op.repo !== undefined) s += ` repo=${JSON.stringify(op.repo)}`;
        if (op.tag !== undefined) s += ` tag=${JSON.stringify(op.tag)}`;
        return this.line(depth, s, op.origin);
      }
      case 'jsonPatch':
        this.line(depth, `jsonPatch ${op.profile}${op.stepsFrom ? ` from ${printValue(op.stepsFrom)}` : ''}`, op.origin);
        for (const step of op.steps) this.line(depth + 1, printStep(step), step.origin);
        return;
      case 'when':
        this.line(depth, `when ${printGuard(op.guard)}`, op.origin);
        this.ops(op.then, depth + 1);
        if (op.else) {
          this.line(depth, 'else');
          this.ops(op.else, depth + 1);
        }
        return;
      case 'forEach': {
        const list = isPath(op.list) ? printPath(op.list) : printValue(op.list);
        let s = `forEach vars.${printName(op.bind)} in ${list}`;
        if (op.indexBind !== undefined) s += ` index ${printIdent(op.indexBind)}`;
        s += ` order ${op.order}`;
        this.line(depth, s, op.origin);
        this.ops(op.body, depth + 1);
        return;
      }
      case 'let':
        return this.line(depth, `let ${op.lazy ? 'lazy ' : ''}${printIdent(op.name)} = ${printValue(op.value)}`, op.origin);
      case 'fail':
        return this.line(depth, `fail ${JSON.stringify(op.message)}`, op.origin);
    }
  }
}

export function isPath(x: Path | Value): x is Path {
  return !('kind' in x);
}

function printSemantics(s: Semantics): string {
  let out = `semantics ${s.order}`;
  if (s.maxPasses !== undefined) out += ` maxPasses=${s.maxPasses}`;
  if (s.reinvocation !== undefined) out += ` reinvocation=${s.reinvocation}`;
  if (s.failurePolicy !== undefined) out += ` failurePolicy=${s.failurePolicy}`;
  if (s.applyRules !== undefined) out += ` applyRules=${s.applyRules}`;
  if (s.namespace !== undefined) out += ` namespace=${s.namespace}`;
  return out;
}

function printStep(step: JsonPatchStep): string {
  let s = `${step.op} ${JSON.stringify(step.path)}`;
  if (step.from !== undefined) s += ` from ${JSON.stringify(step.from)}`;
  if (step.value !== undefined) s += ` = ${printValue(step.value)}`;
  return s;
}

export function printPolicy(policy: Policy, opts: PrintOptions = {}): string {
  return printPolicies([policy], opts);
}

/** The text form of policies, one block each, separated by a blank line; ends with a newline. */
export function printPolicies(policies: readonly Policy[], opts: PrintOptions = {}): string {
  const printer = new Printer(opts.origins === true);
  policies.forEach((p, i) => {
    if (i > 0) printer.blank();
    printer.policy(p);
  });
  return printer.text();
}

/** The text of a list of ops at depth 0 (for traces and messages). */
export function printOps(ops: readonly Op[], opts: PrintOptions = {}): string {
  const printer = new Printer(opts.origins === true);
  printer.ops(ops, 0);
  return printer.text();
}
