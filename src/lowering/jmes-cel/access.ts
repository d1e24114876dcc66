/**
 * Field and index chains (`a.b[0].c`) on a dynamic value, as Kyverno's go-jmespath fork evaluates them:
 * a field of a map that lacks the key is an error (NotFoundError, `Unknown key "x" in path`), a field of
 * anything else is null, an index of a non-list or out of range is null, and null short-circuits the rest.
 *
 * strict: the missing key fails, as CEL's plain select does ("no such key").
 * lenient: the missing key is null, for the places where the fork swallows NotFound (operands of `||`,
 *          comparisons, function arguments, projections, pipes, multiselects); CEL's optional select
 *          (`m[?"k"].orValue(null)`) gives exactly that.
 * Every step is guarded by a type test, because CEL fails where JMESPath yields null (a field of a string).
 * The guards are nested ternaries, never `&&`, except where both sides read the same value.
 */
import { bind, frag, NULL, type Frag } from './frag.js';
import { celString } from './frag.js';
import type { Cx } from './context.js';

export type Mode = 'strict' | 'lenient';

export type Step = { kind: 'field'; name: string } | { kind: 'index'; index: number };

/** Tokens of the CEL lexer that cannot follow a dot (cel-go reserves the rest only as identifiers). */
const NOT_A_FIELD_NAME = new Set(['in', 'null', 'true', 'false']);

function selectable(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !NOT_A_FIELD_NAME.has(name);
}

/** `p.name` / `p["name"]`; the operand is already atomic. */
export function select(p: string, name: string): string {
  return selectable(name) ? `${p}.${name}` : `${p}[${celString(name)}]`;
}

function optionalSelect(p: string, name: string): string {
  return selectable(name) ? `${p}.?${name}.orValue(null)` : `${p}[?${celString(name)}].orValue(null)`;
}

/** Applies the steps to `base`, one guarded conditional per step. */
export function chain(base: Frag, steps: Step[], mode: Mode, cx: Cx): Frag {
  if (steps.length === 0) return base;
  return bind(base, cx.names, (b) => {
    const first = steps[0]!;
    // A field of a known non-map, or an index of a known non-list, is null whatever follows.
    if (b.t !== 'dyn' && (first.kind === 'field' ? b.t !== 'map' : b.t !== 'list')) return NULL;
    const guards: string[] = [];
    let p = b.atom ? b.cel : `(${b.cel})`;
    let knownMap = b.t === 'map';
    let knownList = b.t === 'list';
    let mayFail = false;
    for (const s of steps) {
      if (s.kind === 'field') {
        if (!knownMap) guards.push(`type(${p}) != map`);
        if (mode === 'strict') mayFail = true;
        p = mode === 'strict' ? select(p, s.name) : optionalSelect(p, s.name);
      } else {
        const i = s.index;
        const typeTest = knownList ? '' : `type(${p}) != list || `;
        guards.push(i >= 0 ? `${typeTest}size(${p}) <= ${i}` : `${typeTest}size(${p}) < ${-i}`);
        p = i >= 0 ? `${p}[${i}]` : `${p}[size(${p}) - ${-i}]`;
      }
      // Steps after the first read values whose type nobody knows.
      knownMap = false;
      knownList = false;
      // Lenient selections end in orValue(...), a call: atomic for the next step.
    }
    if (guards.length === 0) return frag(p, 'dyn', { err: mayFail, atom: true });
    const cel = guards.map((g) => `${g} ? null : `).join('') + p;
    return frag(cel, 'dyn', { err: mayFail || b.err });
  });
}

/** A null-safe wrapper: JMESPath's sub-expression yields null when its left side is null. */
export function unlessNull(v: Frag, body: Frag): Frag {
  if (v.t === 'null') return NULL;
  if (v.t !== 'dyn') return body;
  const same = body.t === 'dyn';
  return frag(`type(${v.cel}) == null_type ? null : ${same ? body.cel : `dyn(${body.cel})`}`, 'dyn', { err: body.err });
}
