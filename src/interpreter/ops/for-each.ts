import type { JsonValue } from '../../ir/json.js';
import type { ForEachOp, Value } from '../../ir/nodes.js';
import type { Path } from '../../ir/path.js';
import { evalFailure } from '../failure.js';
import { readPlaces, type Place } from '../read.js';
import type { Binding, Location, Scope } from '../scope.js';
import { compileValue, compileValueNode } from '../values.js';
import type { EvalState } from '../state.js';
import type { OpFn } from './types.js';
import { compileBlock } from './block.js';

/**
 * What runs the body for the elements of one evaluation of the loop, instead of the compiled body: `each` per
 * element (its binding and index; elementScope makes the scope the body would see, when it is needed), then
 * `end` once, also when an element failed (src/compile/smp-for-each.ts).
 */
export interface ElementLoop {
  each(st: EvalState, outer: Scope, binding: Binding, index: number): void;
  end(st: EvalState): void;
}

/** The scope the loop's body sees for one element: the element and its index bound over `outer`. */
export function elementScope(op: ForEachOp, outer: Scope, binding: Binding, index: number): Scope {
  const inner = outer.with(op.bind, binding);
  return op.indexBind ? inner.with(op.indexBind, { value: index }) : inner;
}

function isPath(list: Path | Value): list is Path {
  return 'root' in list && 'segments' in list;
}

/**
 * Iterates a list. Over a path into the object, each element stays a place: writes through `vars.<bind>`
 * reach the element, and later iterations see earlier writes. Indices are the element's original positions.
 */
/**
 * Makes the ElementLoop of one evaluation. `before` is the ownership of in-place writes (EvalState.merges) as
 * it was before the loop, which the loop ended; `read`: the elements are values read from the object (a list
 * value), whose storing ends in-place writes (compileValue) unless the factory finds that none of them can be
 * written in place, and then ends them itself.
 */
export type ElementLoopFactory = (st: EvalState, before: EvalState['merges'], elements: readonly JsonValue[] | undefined, read: boolean) => ElementLoop;

export function compileForEach(op: ForEachOp, loop?: ElementLoopFactory): OpFn {
  const body = loop === undefined ? compileBlock(op.body) : undefined;
  // A factory ends in-place writes itself where the elements need it (ElementLoopFactory `read`).
  const listValue = isPath(op.list) ? undefined : loop === undefined ? compileValue(op.list) : compileValueNode(op.list);
  const listPath = isPath(op.list) ? op.list : undefined;
  const desc = op.order === 'desc';
  return (st, scope) => {
    // The elements are bound as they are now (Kyverno evaluates the list once): a copy of the list, as
    // merges in the body must not change it in place either (EvalState.merges).
    let elements: JsonValue[] | undefined;
    let location: Location | undefined;
    let places: Place[] | undefined;
    let read = false;
    if (listPath) {
      const found = readPlaces(st, listPath, scope);
      if (found.length === 1 && Array.isArray(found[0]!.value)) {
        elements = found[0]!.value.slice();
        location = found[0]!.location;
      } else places = found;
    } else {
      const v = listValue!(st, scope);
      read = v !== null;
      if (v === null) elements = [];
      else if (!Array.isArray(v)) throw evalFailure('TM3004', `forEach list must be a list, got ${JSON.stringify(v)}`, op.origin);
      else elements = v.slice();
    }
    const before = st.merges;
    st.merges = undefined;
    const count = elements !== undefined ? elements.length : places!.length;
    const run = loop?.(st, before, elements, read);
    try {
      for (let k = 0; k < count; k++) {
        const i = desc ? count - 1 - k : k;
        let binding: Binding;
        if (elements !== undefined) binding = location ? { value: elements[i]!, location: [...location, i] } : { value: elements[i]! };
        else {
          const place = places![i]!;
          binding = place.location ? { value: place.value, location: place.location } : { value: place.value };
        }
        if (run !== undefined) run.each(st, scope, binding, i);
        else body!(st, elementScope(op, scope, binding, i));
      }
    } finally {
      run?.end(st);
    }
    return scope;
  };
}
