import type { JsonValue } from '../../ir/json.js';
import type { ForEachOp, Value } from '../../ir/nodes.js';
import type { Path } from '../../ir/path.js';
import { evalFailure } from '../failure.js';
import { readPlaces, type Place } from '../read.js';
import { compileValue } from '../values.js';
import type { OpFn } from './types.js';
import { compileBlock } from './block.js';

function isPath(list: Path | Value): list is Path {
  return 'root' in list && 'segments' in list;
}

/**
 * Iterates a list. Over a path into the object, each element stays a place: writes through `vars.<bind>`
 * reach the element, and later iterations see earlier writes. Indices are the element's original positions.
 */
export function compileForEach(op: ForEachOp): OpFn {
  const body = compileBlock(op.body);
  const listValue = isPath(op.list) ? undefined : compileValue(op.list);
  const listPath = isPath(op.list) ? op.list : undefined;
  return (st, scope) => {
    let items: Place[];
    if (listPath) {
      const places = readPlaces(st, listPath, scope);
      if (places.length === 1 && Array.isArray(places[0]!.value)) {
        const { value, location } = places[0]!;
        items = (value as JsonValue[]).map((v, i) => (location ? { value: v, location: [...location, i] } : { value: v }));
      } else items = places;
    } else {
      const v = listValue!(st, scope);
      if (v === null) items = [];
      else if (!Array.isArray(v)) throw evalFailure('TM3004', `forEach list must be a list, got ${JSON.stringify(v)}`, op.origin);
      else items = v.map((value) => ({ value }));
    }
    // The elements are bound as they are now (Kyverno evaluates the list once): merges in the body must not
    // change them in place (EvalState.merges).
    st.merges = undefined;
    const order = op.order === 'desc' ? items.map((_, i) => items.length - 1 - i) : items.map((_, i) => i);
    for (const i of order) {
      const item = items[i]!;
      let inner = scope.with(op.bind, item.location ? { value: item.value, location: item.location } : { value: item.value });
      if (op.indexBind) inner = inner.with(op.indexBind, { value: i });
      body(st, inner);
    }
    return scope;
  };
}
