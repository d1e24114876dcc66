/** IR values and guards as CEL expressions over the MAP environment (`object`, `oldObject`, `request`, ...). */
import type { Guard, Value } from '../../ir/nodes.js';
import type { Path } from '../../ir/path.js';
import { celLiteral, hasField, paren, select } from './emit-cel.js';
import { kyvernoConditionsToCel } from './emit-kyverno-conditions.js';

export type Emitted = { cel: string } | { why: string };

const ROOTS: Partial<Record<Path['root'], string>> = { object: 'object', oldObject: 'oldObject', request: 'request', params: 'params', namespaceObject: 'namespaceObject' };

/** The value at a single-place path of field segments, and the presence tests that must hold to read it. */
export function readPath(p: Path): { expr: string; tests: string[] } | string {
  let expr = ROOTS[p.root];
  if (expr === undefined) return `a path rooted at ${p.root}`;
  const tests: string[] = [];
  for (const s of p.segments) {
    if (s.kind !== 'field') return `a read through a ${s.kind} segment`;
    tests.push(hasField(expr, s.name));
    expr = select(expr, s.name);
  }
  return { expr, tests };
}

export function emitValue(v: Value): Emitted {
  switch (v.kind) {
    case 'literal': {
      const lit = celLiteral(v.json);
      return lit === undefined ? { why: `the value ${JSON.stringify(v.json)} (null or out of CEL's exact range)` } : { cel: lit };
    }
    case 'cel':
      return { cel: v.expr.text };
    case 'fromMetadata':
      // Gatekeeper reads obj.GetName()/GetNamespace(), "" when unset (mutators/assign: fromMetadata).
      return { cel: `object.metadata.?${v.field}.orValue("")` };
    case 'ref': {
      const r = readPath(v.path);
      return typeof r === 'string' ? { why: r } : { cel: r.expr };
    }
    default:
      return { why: `a value of kind ${v.kind}` };
  }
}

/** A guard as a CEL condition; a missing path makes a comparison false, as the IR's three-valued logic does. */
export function emitGuard(g: Guard): Emitted {
  switch (g.kind) {
    case 'const':
      return { cel: String(g.value) };
    case 'cel':
      return { cel: g.expr.text };
    case 'exists':
    case 'notExists': {
      const r = readPath(g.path);
      if (typeof r === 'string') return { why: r };
      const all = r.tests.join(' && ') || 'true';
      return { cel: g.kind === 'exists' ? all : r.tests.length > 1 ? `!(${all})` : `!${all}` };
    }
    case 'eq':
    case 'neq': {
      const r = readPath(g.path);
      if (typeof r === 'string') return { why: r };
      const v = emitValue(g.value);
      if ('why' in v) return v;
      return { cel: [...r.tests, `${r.expr} ${g.kind === 'eq' ? '==' : '!='} ${v.cel}`].join(' && ') };
    }
    case 'in':
    case 'notIn': {
      const r = readPath(g.path);
      if (typeof r === 'string') return { why: r };
      const vs = g.values.map(emitValue);
      const bad = vs.find((x) => 'why' in x);
      if (bad) return bad;
      const list = `[${vs.map((x) => (x as { cel: string }).cel).join(', ')}]`;
      const test = g.kind === 'in' ? `${r.expr} in ${list}` : `!(${r.expr} in ${list})`;
      return { cel: [...r.tests, test].join(' && ') };
    }
    case 'and':
    case 'or': {
      const parts: string[] = [];
      for (const a of g.args) {
        const e = emitGuard(a);
        if ('why' in e) return e;
        parts.push(paren(e.cel));
      }
      if (parts.length === 0) return { cel: g.kind === 'and' ? 'true' : 'false' };
      return { cel: parts.join(g.kind === 'and' ? ' && ' : ' || ') };
    }
    case 'not': {
      const e = emitGuard(g.arg);
      return 'why' in e ? e : { cel: `!${paren(e.cel)}` };
    }
    case 'jmes': {
      const cel = kyvernoConditionsToCel(g.expr.text);
      return cel ? { cel } : { why: `the JMESPath condition ${g.expr.text.length > 120 ? `${g.expr.text.slice(0, 117)}...` : g.expr.text}` };
    }
    default:
      return { why: `a guard of kind ${g.kind}` };
  }
}
