/**
 * The places of the object a CEL expression reads, and the places a MAP mutation written in CEL may write,
 * as paths of field names from the object's root, found in the expression's syntax (issue 17: what
 * variable-reuse.ts needs to know that a mutation leaves a variable's inputs alone). Both are
 * over-approximations: a path stands for its whole subtree, and what cannot be told is EVERYWHERE.
 *
 * - Reads: each chain `object.a.b` (selections, `has()` tests, `?.` and constant-string indexes) reads the
 *   subtree at [a, b]; `object` anywhere else (passed whole, iterated, indexed by a computed key) reads it all.
 * - ApplyConfiguration writes: the `Object{...}` literal's tree of fields and constant-keyed map literals,
 *   down to each value that is not such a literal, whose whole place it may write (and the maps on the way,
 *   which it may create).
 * - JSONPatch writes: each `JSONPatch{...}` literal's `path` (and `from`), when it is a string built of
 *   string literals and `jsonpatch.escapeKey` of them, decoded as a JSON pointer; both branches of `? :`.
 */
import { subexpressions, type Expr } from '../cel/ast.js';

/** Any place of the object. */
export const EVERYWHERE: unique symbol = Symbol('everywhere');
export type Places = readonly (readonly string[])[] | typeof EVERYWHERE;

/** The object places `e` reads. */
export function objectReads(e: Expr): Places {
  const out: string[][] = [];
  return collectReads(e, out) ? out : EVERYWHERE;
}

/** The field names of a chain from `object` (`object` itself: []), or undefined when `e` is not one. */
function objectChain(e: Expr): string[] | undefined {
  if (e.kind === 'ident') return e.name === 'object' && e.leadingDot !== true ? [] : undefined;
  if (e.kind === 'select') {
    const above = objectChain(e.operand);
    return above === undefined ? undefined : [...above, e.field];
  }
  if (e.kind === 'index' && e.index.kind === 'literal' && e.index.lit.type === 'string') {
    const above = objectChain(e.operand);
    return above === undefined ? undefined : [...above, e.index.lit.value];
  }
  return undefined;
}

function collectReads(e: Expr, out: string[][]): boolean {
  // A comprehension that names a variable `object` hides the request's: its body's reads cannot be told.
  if (e.kind === 'comprehension' && (e.iterVar === 'object' || e.iterVar2 === 'object')) return false;
  const chain = objectChain(e);
  if (chain !== undefined) {
    if (chain.length === 0) return false;
    out.push(chain);
    // An index's key is a literal here: nothing else is read.
    return true;
  }
  for (const x of subexpressions(e)) if (!collectReads(x, out)) return false;
  return true;
}

/** The object places an ApplyConfiguration expression may write. */
export function applyConfigurationWrites(e: Expr): Places {
  const out: string[][] = [];
  return collectApplyWrites(e, [], true, out) ? out : EVERYWHERE;
}

function collectApplyWrites(e: Expr, at: readonly string[], root: boolean, out: string[][]): boolean {
  if (e.kind === 'call' && e.fn === '_?_:_' && e.args.length === 3) {
    return collectApplyWrites(e.args[1]!, at, root, out) && collectApplyWrites(e.args[2]!, at, root, out);
  }
  if (e.kind === 'struct' && e.typeName.startsWith('Object')) {
    if (e.fields.length === 0 && !root) out.push([...at]);
    for (const f of e.fields) if (!collectApplyWrites(f.value, [...at, f.name], false, out)) return false;
    return true;
  }
  // The root must be an `Object` literal: whatever else it is, its places cannot be told.
  if (root) return false;
  if (e.kind === 'map' && e.entries.every((en) => en.key.kind === 'literal' && en.key.lit.type === 'string')) {
    if (e.entries.length === 0) out.push([...at]);
    for (const en of e.entries) {
      const key = (en.key as Extract<Expr, { kind: 'literal' }>).lit as { value: string };
      if (!collectApplyWrites(en.value, [...at, key.value], false, out)) return false;
    }
    return true;
  }
  out.push([...at]);
  return true;
}

/** The object places a JSONPatch expression (a list of `JSONPatch` literals, or a `? :` of such) may write. */
export function jsonPatchWrites(e: Expr): Places {
  const out: string[][] = [];
  return collectPatchWrites(e, out) ? out : EVERYWHERE;
}

function collectPatchWrites(e: Expr, out: string[][]): boolean {
  if (e.kind === 'call' && e.fn === '_?_:_' && e.args.length === 3) return collectPatchWrites(e.args[1]!, out) && collectPatchWrites(e.args[2]!, out);
  if (e.kind !== 'list' || e.optional.some(Boolean)) return false;
  for (const step of e.elements) {
    if (step.kind !== 'struct' || step.typeName !== 'JSONPatch') return false;
    const op = step.fields.find((f) => f.name === 'op');
    // A `test` writes nothing; every other operation writes its path (`move` also removes `from`).
    if (op !== undefined && op.value.kind === 'literal' && op.value.lit.type === 'string' && op.value.lit.value === 'test') continue;
    for (const f of step.fields) {
      if (f.name !== 'path' && f.name !== 'from') continue;
      const pointer = constantString(f.value);
      if (pointer === undefined || f.optional) return false;
      const segments = pointerSegments(pointer);
      if (segments === undefined) return false;
      out.push(segments);
    }
  }
  return true;
}

/** The value of a string built of literals, `+` and `jsonpatch.escapeKey`, or undefined. */
function constantString(e: Expr): string | undefined {
  if (e.kind === 'literal') return e.lit.type === 'string' ? e.lit.value : undefined;
  if (e.kind !== 'call') return undefined;
  if (e.fn === '_+_' && e.target === undefined && e.args.length === 2) {
    const a = constantString(e.args[0]!);
    const b = a === undefined ? undefined : constantString(e.args[1]!);
    return b === undefined ? undefined : a! + b;
  }
  if (e.fn === 'escapeKey' && e.target?.kind === 'ident' && e.target.name === 'jsonpatch' && e.args.length === 1) {
    const key = constantString(e.args[0]!);
    // jsonpatch.escapeKey (k8s.io/apiserver/pkg/cel/library/jsonpatch.go): `~` then `/`.
    return key === undefined ? undefined : key.replaceAll('~', '~0').replaceAll('/', '~1');
  }
  return undefined;
}

/** The keys of a JSON pointer (RFC 6901), or undefined for one that is not a pointer (a write the patch refuses). */
function pointerSegments(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Whether a write at one of `writes` may change what a read at one of `reads` sees (one path is a prefix of the other). */
export function placesOverlap(writes: Places, reads: Places): boolean {
  if (writes === EVERYWHERE || reads === EVERYWHERE) return true;
  for (const w of writes) for (const r of reads) if (isPrefix(w, r) || isPrefix(r, w)) return true;
  return false;
}

function isPrefix(a: readonly string[], b: readonly string[]): boolean {
  if (a.length > b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

