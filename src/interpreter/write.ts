import type { Origin } from '../diagnostics/span.js';
import type { JsonValue } from '../ir/json.js';
import type { Path, Segment } from '../ir/path.js';
import { evalFailure } from './failure.js';
import type { Scope } from './scope.js';
import type { EvalState } from './state.js';
import { UNCHANGED, walk, type Leaf, type WalkOptions, type WalkResult } from './walk.js';

/** A walk specialised to one path's segments (src/compile/path-walker.ts): `walk(cur, segments, 0, leaf, opts)`. */
export type PathWalker = (cur: JsonValue | undefined, leaf: Leaf, opts: WalkOptions) => WalkResult;

/** Segments addressing a concrete location in the object. */
function locationSegments(location: (string | number)[]): Segment[] {
  return location.map((k) => (typeof k === 'number' ? { kind: 'index', index: k } : { kind: 'field', name: k }));
}

/**
 * Applies `leaf` at every place `path` reaches in the object, replacing `st.object` when something changed.
 * Paths through a variable bound to an element of the object write to that element. Returns whether the
 * object changed. `walker`, when given, is the generated walk of the path's segments, used for object paths.
 */
export function writePath(st: EvalState, scope: Scope, path: Path, leaf: Leaf, create: boolean, origin: Origin, walker?: PathWalker): boolean {
  let segs: readonly Segment[];
  if (path.root === 'object') segs = path.segments;
  else if (path.root === 'vars') {
    const first = path.segments[0];
    const binding = first?.kind === 'field' ? scope.lookup(first.name) : undefined;
    if (!binding) throw evalFailure('TM3007', `variable "${first?.kind === 'field' ? first.name : '?'}" is not bound here`, origin);
    if (!binding.location) throw evalFailure('TM3001', `variable "${(first as { name: string }).name}" holds a computed value, not a place in the object, and cannot be written`, origin);
    segs = [...locationSegments(binding.location), ...path.segments.slice(1)];
  } else {
    throw evalFailure('TM3001', `only the object can be mutated, not ${path.root}`, origin);
  }
  // Gatekeeper's core walk refuses an empty location (mutation_function.go); whole-object replacement is a
  // JSON patch's job, not a path write's.
  if (segs.length === 0) throw evalFailure('TM3001', 'attempting to mutate an empty target location', origin);
  const opts: WalkOptions = { create, origin, owned: st.owned, leafCalls: 0, inPlace: 0 };
  const r = walker !== undefined && path.root === 'object' ? walker(st.object ?? undefined, leaf, opts) : walk(st.object ?? undefined, segs, 0, leaf, opts);
  st.writes += opts.leafCalls;
  // The request matched on holds the object by reference: after an in-place change it is out of date.
  if (opts.inPlace > 0) st.matchRequest = undefined;
  if (r === UNCHANGED) return false;
  st.object = r;
  return true;
}
