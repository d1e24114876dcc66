/**
 * Kyverno preconditions / conditions blocks (pkg/engine/utils CheckPreconditions, as
 * src/dialects/kyverno/preconditions.ts evaluates them): the whole block is substituted first, so an error
 * in any key, value or message (a missing key in a `{{ }}`) fails the rule; then `any` holds when some
 * condition does (an explicit empty `any` is false), `all` when every one does, and the block when both do;
 * a legacy list is `all`. Every substituted value is bound before the operators run, so its error surfaces
 * in the CEL too, whatever the operators would have read.
 */
import { isJsonObject } from '../../ir/json.js';
import { canonicalOperator } from '../../dialects/kyverno/operators.js';
import { run, type Outcome } from './compile.js';
import type { Cx, JmesCelScope } from './context.js';
import { bindAll, frag, type Frag } from './frag.js';
import { homogeneous, literal } from './literal.js';
import { and, Operand, or, type B } from './operand.js';
import { durationOperator, equals, inOperator, notEquals, numeric, setOperator } from './operators.js';
import { yet } from './refuse.js';
import { celString } from './frag.js';
import type { CelTarget } from './target.js';
import { templateFrag } from './template.js';

/** A substituted JSON tree: its value when it has no holes, else the CEL building it. */
type Tree = { stat: { value: unknown } } | { frag: Frag };

function tree(v: unknown, cx: Cx): Tree {
  if (typeof v === 'string') {
    const f = templateFrag(v, cx);
    return f.lit !== undefined ? { stat: f.lit } : { frag: f };
  }
  if (Array.isArray(v)) {
    const items = v.map((x) => tree(x, cx));
    if (items.every((t) => 'stat' in t)) return { stat: { value: items.map((t) => (t as { stat: { value: unknown } }).stat.value) } };
    const frags = items.map((t) => ('stat' in t ? literal(t.stat.value) : t.frag));
    return { frag: frag(`[${homogeneous(frags).join(', ')}]`, 'list', { atom: true, err: frags.some((f) => f.err) }) };
  }
  if (isJsonObject(v)) {
    const keys = Object.keys(v);
    if (keys.some((k) => k.includes('{{'))) yet('a `{{ }}` in a map key of a condition');
    const vals = keys.map((k) => tree(v[k], cx));
    if (vals.every((t) => 'stat' in t)) {
      const out: Record<string, unknown> = {};
      keys.forEach((k, i) => Object.defineProperty(out, k, { value: (vals[i] as { stat: { value: unknown } }).stat.value, enumerable: true, writable: true, configurable: true }));
      return { stat: { value: out } };
    }
    const frags = vals.map((t) => ('stat' in t ? literal(t.stat.value) : t.frag));
    const texts = homogeneous(frags);
    return { frag: frag(`{${keys.map((k, i) => `${celString(k)}: ${texts[i]}`).join(', ')}}`, 'map', { atom: true, err: frags.some((f) => f.err) }) };
  }
  return { stat: { value: v ?? null } };
}

interface Condition {
  operator: string | undefined;
  key: Tree;
  value: Tree;
  /** Other substituted fields (message...): evaluated for their errors only. */
  extra: Tree[];
}

function condition(c: unknown, cx: Cx): Condition | undefined {
  if (!isJsonObject(c)) {
    if (typeof c === 'string' && c.includes('{{')) yet('a condition that is itself a `{{ }}` string');
    return undefined;
  }
  const op = c.operator;
  if (typeof op === 'string' && op.includes('{{')) yet('a condition operator given as a `{{ }}` variable');
  const extra = Object.keys(c)
    .filter((k) => k !== 'key' && k !== 'value' && k !== 'operator')
    .map((k) => tree(c[k], cx));
  return { operator: typeof op === 'string' ? op : undefined, key: tree(c.key ?? null, cx), value: tree(c.value ?? null, cx), extra };
}

function evaluate(c: Condition, key: Operand, value: Operand, cx: Cx): B {
  switch (c.operator === undefined ? undefined : canonicalOperator(c.operator)) {
    case 'Equal':
    case 'Equals':
      return equals(key, value);
    case 'NotEqual':
    case 'NotEquals':
      return notEquals(key, value);
    case 'In':
      return inOperator(key, value, false, cx);
    case 'NotIn':
      return inOperator(key, value, true, cx);
    case 'AnyIn':
      return setOperator('anyIn', key, value, cx);
    case 'AllIn':
      return setOperator('allIn', key, value, cx);
    case 'AnyNotIn':
      return setOperator('anyNotIn', key, value, cx);
    case 'AllNotIn':
      return setOperator('allNotIn', key, value, cx);
    case 'GreaterThanOrEquals':
      return numeric(key, value, '>=', cx);
    case 'GreaterThan':
      return numeric(key, value, '>', cx);
    case 'LessThanOrEquals':
      return numeric(key, value, '<=', cx);
    case 'LessThan':
      return numeric(key, value, '<', cx);
    case 'DurationGreaterThanOrEquals':
      return durationOperator(key, value, '>=');
    case 'DurationGreaterThan':
      return durationOperator(key, value, '>');
    case 'DurationLessThanOrEquals':
      return durationOperator(key, value, '<=');
    case 'DurationLessThan':
      return durationOperator(key, value, '<');
    default:
      // An unknown operator has no handler upstream: the condition is false.
      return false;
  }
}

export function conditionsFrag(block: unknown, cx: Cx): Frag {
  if (typeof block === 'string' && block.includes('{{')) yet('a conditions block given as a `{{ }}` variable');
  type Group = { kind: 'any' | 'all'; conditions: (Condition | undefined)[] };
  const groups: Group[] = [];
  const blockExtras: Tree[] = [];
  if (Array.isArray(block)) groups.push({ kind: 'all', conditions: block.map((c) => condition(c, cx)) });
  else if (isJsonObject(block)) {
    for (const kind of ['any', 'all'] as const) {
      const list = block[kind];
      if (typeof list === 'string' && list.includes('{{')) yet(`a conditions \`${kind}\` list given as a \`{{ }}\` variable`);
      if (Array.isArray(list)) groups.push({ kind, conditions: list.map((c) => condition(c, cx)) });
    }
    // Other fields are substituted too (an error there fails the rule).
    for (const k of Object.keys(block)) if (k !== 'any' && k !== 'all') blockExtras.push(tree(block[k], cx));
  }
  // Bind every substituted value (document order), then run the operators on the bound values.
  const dynamic: Frag[] = [];
  const slot = (t: Tree): number => ('frag' in t ? dynamic.push(t.frag) - 1 : -1);
  blockExtras.forEach(slot);
  const slots = groups.map((g) => g.conditions.map((c) => (c ? { key: slot(c.key), value: slot(c.value), extra: c.extra.map(slot) } : undefined)));
  return bindAll(dynamic, cx.names, (bound) => {
    const operand = (t: Tree, i: number): Operand => (i < 0 ? Operand.literal((t as { stat: { value: unknown } }).stat.value) : Operand.of(bound[i]!));
    const results = groups.map((g, gi) => {
      const each = g.conditions.map((c, ci) => (c ? evaluate(c, operand(c.key, slots[gi]![ci]!.key), operand(c.value, slots[gi]![ci]!.value), cx) : false));
      return g.kind === 'any' ? or(...each) : and(...each);
    });
    const b = and(...results);
    return frag(typeof b === 'boolean' ? String(b) : b, 'bool', { atom: typeof b === 'boolean' });
  });
}

export function compileConditions(block: unknown, scope: JmesCelScope, target: CelTarget): Outcome {
  return run(scope, target, (cx) => conditionsFrag(block, cx));
}
