/**
 * Field and index chains (`a.b[0].c`) on a dynamic value, as Kyverno's go-jmespath fork evaluates them:
 * a field of a map that lacks the key is an error (NotFoundError, `Unknown key "x" in path`), a field of
 * anything else is null, an index of a non-list or out of range is null, and null short-circuits the rest.
 *
 * strict: the missing key fails, as CEL's plain select does ("no such key").
 * lenient: the missing key is null, for the places where the fork swallows NotFound (operands of `||`,
 *          comparisons, function arguments, projections, pipes, multiselects); CEL's optional select
 *          (`m[?"k"].orValue(null)`) gives exactly that.
 * Where the value's type (types.ts) says a map or a list, a step needs nothing more (typedChain); every
 * other step is guarded by a type test, because CEL fails where JMESPath yields null (a field of a string).
 * Those guards are nested ternaries, never `&&`, except where both sides read the same value.
 */
import { bind, celString, cond, frag, NULL, tfrag, tyOf, type Frag } from './frag.js';
import { fieldType, T, type Ty } from './types.js';
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

/** `p.?name` / `p[?"name"]`: an optional, none where the key is missing. */
function optionalSelect(p: string, name: string): string {
  return selectable(name) ? `${p}.?${name}` : `${p}[?${celString(name)}]`;
}

/**
 * Applies the steps to `base`: plain selects as far as the type knows a map (optional ones, `.?f`, where a
 * lenient step may be absent), then one guarded conditional per remaining step.
 */
export function chain(base: Frag, steps: Step[], mode: Mode, cx: Cx): Frag {
  if (steps.length === 0) return base;
  // A field or index of null is null: the steps apply to the value under its test.
  const w = base.whenNotNull;
  if (w && !base.err) {
    const inner = chain(w.value, steps, mode, cx);
    return { ...cond(w.test, inner, NULL), whenNotNull: { test: w.test, value: inner } };
  }
  return bind(base, cx.names, (b) => typedChain(b, steps, mode, cx));
}

/**
 * The typed prefix. Strict: `a.b.c` fails where a key is missing, as the fork's NotFound; an index out of
 * range is null, by a guard. Lenient: `a.?b.?c` is none where a key (or an index, `[?i]`) is missing,
 * which orValue(null) makes null; a step known to be present stays a plain select. Every step of the prefix
 * reads a value its type says is a map (or a list), never null, so nothing else can happen.
 */
function typedChain(b: Frag, steps: Step[], mode: Mode, cx: Cx): Frag {
  let ty = tyOf(b);
  let strict = b.atom ? b.cel : `(${b.cel})`;
  let optional: string | undefined;
  // The presence test when one step only may be missing (`has(a.b)`); null when several may.
  let present: string | null | undefined;
  const guards: string[] = [];
  let mayFail = false;
  let i = 0;
  // Lenient: the absence of an earlier step becomes a guard, so that the plain path can be read from here.
  const guardAbsence = (): void => {
    if (optional === undefined) return;
    guards.push(`!${typeof present === 'string' ? present : `${optional}.hasValue()`}`);
    optional = undefined;
    present = undefined;
  };
  for (; i < steps.length; i++) {
    const s = steps[i]!;
    const want = s.kind === 'field' ? 'map' : 'list';
    // A value that may be null (a list the API server writes as null) is guarded, then known.
    const nullable = ty.k === 'nullable' && ty.of.k === want;
    const t = nullable ? (ty as { of: Ty }).of : ty;
    if (t.k !== want) break;
    const nullGuard = nullable ? `type(${strict}) != ${want}` : undefined;
    if (nullable) guardAbsence();
    if (s.kind === 'field' && t.k === 'map') {
      if (nullGuard) guards.push(nullGuard);
      const f = fieldType(t, s.name);
      if (mode === 'strict') mayFail ||= !f.always;
      else if (optional !== undefined || !f.always) {
        if (!f.always) present = present === undefined ? (selectable(s.name) ? `has(${select(strict, s.name)})` : `${celString(s.name)} in ${strict}`) : null;
        optional = optionalSelect(optional ?? strict, s.name);
      }
      strict = select(strict, s.name);
      ty = f.ty;
    } else if (s.kind === 'index' && t.k === 'list') {
      // An index of a list known not to be empty is there (index 0, or -1).
      const inRange = t.nonEmpty === true && (s.index === 0 || s.index === -1);
      const sizeGuard = inRange ? undefined : s.index === 0 ? `size(${strict}) == 0` : s.index >= 0 ? `size(${strict}) <= ${s.index}` : `size(${strict}) < ${-s.index}`;
      // `||` is safe here: its right side is read only where the left one says the value is a list.
      const guard = [nullGuard, sizeGuard].filter((g) => g !== undefined).join(' || ');
      if (mode === 'lenient' && !nullGuard && s.index >= 0) {
        // `[?i]`: none out of range, like a missing key.
        if (!inRange) present = present === undefined ? `size(${strict}) > ${s.index}` : null;
        if (optional !== undefined || !inRange) optional = `${optional ?? strict}[?${s.index}]`;
      } else {
        guardAbsence();
        if (guard !== '') guards.push(guard);
      }
      strict = s.index >= 0 ? `${strict}[${s.index}]` : `${strict}[size(${strict}) - ${-s.index}]`;
      ty = t.of;
    }
  }
  if (i === 0) return guardedChain(b, steps, mode, cx);
  // The guards in order, joined by `||`: where one holds, Kyverno's evaluation has reached null there and
  // reads nothing further, so an error of a later guard (a missing key) is rightly absorbed.
  const prefix = (f: Frag): Frag => (guards.length === 0 ? f : tfrag(`${guards.join(' || ')} ? null : ${f.cel}`, T.nullable(tyOf(f)), { err: f.err || mayFail }));
  let head: Frag;
  if (optional !== undefined) {
    const test = typeof present === 'string' ? present : `${optional}.hasValue()`;
    head = {
      ...tfrag(`${optional}.orValue(null)`, T.nullable(ty), { simple: true, atom: true }),
      optional: { cel: optional, strict, ty, present: test },
      orFail: tfrag(strict, ty, { atom: true, err: true, pure: true }),
    };
  } else {
    // A plain path: pure (repeating it costs nothing), failing only where Kyverno fails too.
    head = tfrag(strict, ty, { atom: true, err: mayFail, simple: !mayFail, pure: true });
  }
  if (i === steps.length) return prefix(head);
  return prefix(guardedChain(head, steps.slice(i), mode, cx));
}

/** One guarded conditional per step, for a value whose type is not known to be a map or a list. */
function guardedChain(b: Frag, steps: Step[], mode: Mode, cx: Cx): Frag {
  return bind(b, cx.names, (b) => {
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
        p = mode === 'strict' ? select(p, s.name) : `${optionalSelect(p, s.name)}.orValue(null)`;
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
