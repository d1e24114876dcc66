/**
 * Structured IR guards (exists / notExists / eq / neq / in / notIn / and / or / not / const) as Kyverno
 * precondition entries. An equality with a plain word is written the way users write it,
 * `{{ path || '' }} Equals word`: Kyverno's Equals (operator/equal.go) compares a string key by duration,
 * then quantity, then wildcard, and a word that starts with a letter and holds no `*`/`?` is neither a
 * duration nor a quantity nor a pattern, so that is string equality, and a missing field (`''`) never equals
 * it. Everything else is a JMESPath boolean compared with `Equals true`, built from forms that are false,
 * never a substitution error, on a missing field (emit-preconditions.ts), matching the IR's reading of a
 * missing path as false.
 */
import type { JsonObject, JsonValue } from '../../ir/json.js';
import type { Guard, Value } from '../../ir/nodes.js';
import type { Path } from '../../ir/path.js';
import { prefixOf, simplifyGuard } from '../../lowering/simplify-guard.js';
import { hasField } from './emit-preconditions.js';
import { hole, jmesField, jmesLiteral } from './emit-text.js';

const PLAIN_WORD = /^[A-Za-z][A-Za-z0-9_.-]*$/;

const ROOTS: Partial<Record<Path['root'], string>> = { object: 'request.object' };

/** The JMESPath of a path of field segments, with its parent and last field; or why not. */
function pathExpr(p: Path): { expr: string; parent: string; last: string } | string {
  const base = ROOTS[p.root];
  if (base === undefined) return `a condition on ${p.root}`;
  if (p.segments.length === 0) return 'a condition on the whole object';
  let parent = base;
  let expr = base;
  for (const s of p.segments) {
    if (s.kind !== 'field' || s.test) return `a condition through a ${s.kind} segment`;
    if (s.name.includes('{{')) return `a field name containing "{{" (${s.name})`;
    parent = expr;
    expr = `${expr}.${jmesField(s.name)}`;
  }
  const last = p.segments[p.segments.length - 1]!;
  return { expr, parent, last: (last as { name: string }).name };
}

function literalOf(v: Value): { json: JsonValue } | string {
  return v.kind === 'literal' ? { json: v.json } : `a comparison with a value of kind ${v.kind}`;
}

/** A JMESPath boolean that is the guard's IR value on every object, or why there is none. */
function guardExprOrReason(g: Guard): { expr?: string; reason?: string } {
  const sub = (x: Guard): string | { reason: string } => {
    const r = guardExprOrReason(x);
    return r.reason !== undefined ? { reason: r.reason } : r.expr!;
  };
  switch (g.kind) {
    case 'const':
      return { expr: g.value ? '`true`' : '`false`' };
    case 'exists':
    case 'notExists': {
      const p = pathExpr(g.path);
      if (typeof p === 'string') return { reason: p };
      const has = hasField(p.parent, p.last);
      return { expr: g.kind === 'exists' ? has : `!${has}` };
    }
    case 'eq':
    case 'neq': {
      const p = pathExpr(g.path);
      if (typeof p === 'string') return { reason: p };
      const v = literalOf(g.value);
      if (typeof v === 'string') return { reason: v };
      // A missing path is false for both; JMESPath reads it as null, so presence is tested where null could pass.
      if (g.kind === 'eq') return { expr: v.json === null ? `${hasField(p.parent, p.last)} && ${p.expr} == \`null\`` : `${p.expr} == ${jmesLiteral(v.json)}` };
      return { expr: `${hasField(p.parent, p.last)} && ${p.expr} != ${jmesLiteral(v.json)}` };
    }
    case 'in':
    case 'notIn': {
      const p = pathExpr(g.path);
      if (typeof p === 'string') return { reason: p };
      const values: JsonValue[] = [];
      for (const x of g.values) {
        const v = literalOf(x);
        if (typeof v === 'string') return { reason: v };
        values.push(v.json);
      }
      const member = `contains(${jmesLiteral(values)}, ${p.expr})`;
      if (g.kind === 'in') return { expr: values.includes(null) ? `${hasField(p.parent, p.last)} && ${member}` : member };
      return { expr: `${hasField(p.parent, p.last)} && !${member}` };
    }
    case 'and':
    case 'or': {
      const parts: string[] = [];
      for (const a of g.args) {
        const s = sub(a);
        if (typeof s !== 'string') return s;
        parts.push(`(${s})`);
      }
      if (parts.length === 0) return { expr: g.kind === 'and' ? '`true`' : '`false`' };
      return { expr: parts.join(g.kind === 'and' ? ' && ' : ' || ') };
    }
    case 'not': {
      const s = sub(g.arg);
      return typeof s === 'string' ? { expr: `!(${s})` } : s;
    }
    default:
      return { reason: `a condition of kind ${g.kind}` };
  }
}

/** The JMESPath boolean of a structured guard, or undefined when it has none. */
export function guardJmes(g: Guard): string | undefined {
  return guardExprOrReason(g).expr;
}

/** JMESPath conditions standing for guards the generator compiled itself (from CEL), by guard. */
export type CompiledGuards = ReadonlyMap<Guard, { j: string }>;

/** One precondition entry for a guard, or why Kyverno cannot state it. */
export function conditionEntry(g: Guard, compiled?: CompiledGuards): JsonObject | string {
  const c = compiled?.get(g);
  if (c) return { key: hole(c.j), operator: 'Equals', value: true };
  if (g.kind === 'eq' && g.value.kind === 'literal' && typeof g.value.json === 'string' && PLAIN_WORD.test(g.value.json)) {
    const p = pathExpr(g.path);
    if (typeof p !== 'string') return { key: hole(`${p.expr} || ''`), operator: 'Equals', value: g.value.json };
  }
  const r = guardExprOrReason(g);
  if (r.reason !== undefined) return r.reason;
  return { key: hole(r.expr!), operator: 'Equals', value: true };
}

/** The `notExists` among `args` that makes `a != word` read as "missing or different": `{{ a || '' }} NotEquals word`. */
function missingPartner(a: Guard, args: readonly Guard[]): Guard | undefined {
  if (a.kind !== 'neq' || a.value.kind !== 'literal' || typeof a.value.json !== 'string' || !PLAIN_WORD.test(a.value.json)) return undefined;
  // Only the same path: `notExists a` next to `a.b != word` leaves "a present, b missing" false.
  return args.find((b) => b.kind === 'notExists' && prefixOf(b.path, a.path, true) && prefixOf(a.path, b.path, true));
}

/** Disjunction entries, each `notExists a` + `a != word` pair said the way Kyverno users say it. */
function disjunctionEntries(args: readonly Guard[]): JsonObject[] | string {
  const absorbed = new Set(args.map((a) => missingPartner(a, args)).filter((g): g is Guard => g !== undefined));
  const entries: JsonObject[] = [];
  for (const a of args) {
    if (absorbed.has(a)) continue;
    const p = missingPartner(a, args) && a.kind === 'neq' ? pathExpr(a.path) : undefined;
    if (p !== undefined && typeof p !== 'string' && a.kind === 'neq' && a.value.kind === 'literal') {
      entries.push({ key: hole(`${p.expr} || ''`), operator: 'NotEquals', value: a.value.json });
      continue;
    }
    const c = conditionEntry(a);
    if (typeof c === 'string') return c;
    entries.push(c);
  }
  return entries;
}

/**
 * A conjunction of guards as a `preconditions` block: each guard one `all` entry; one disjunction may spread
 * over `any` (Kyverno: any AND all).
 */
export function guardPreconditions(guardsIn: readonly Guard[], compiled?: CompiledGuards): { all: JsonObject[]; any: JsonObject[] } | string {
  const all: JsonObject[] = [];
  const any: JsonObject[] = [];
  const guards = guardsIn.map(simplifyGuard).flatMap((g) => (g.kind === 'and' ? g.args : [g]));
  for (const g of guards) {
    if (g.kind === 'or' && any.length === 0 && g.args.length > 0) {
      const entries = disjunctionEntries(g.args);
      if (typeof entries === 'string') return entries;
      if (entries.length === 1) all.push(entries[0]!);
      else any.push(...entries);
      continue;
    }
    const e = conditionEntry(g, compiled);
    if (typeof e === 'string') return e;
    all.push(e);
  }
  return { all, any };
}

/** Every path a guard reads. */
export function guardPaths(g: Guard): Path[] {
  switch (g.kind) {
    case 'exists':
    case 'notExists':
    case 'eq':
    case 'neq':
    case 'in':
    case 'notIn':
    case 'match':
      return [g.path];
    case 'and':
    case 'or':
      return g.args.flatMap(guardPaths);
    case 'not':
      return guardPaths(g.arg);
    default:
      return [];
  }
}
