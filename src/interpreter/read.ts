import { hasOwn, isJsonObject, type JsonValue } from '../ir/json.js';
import type { Path, Segment } from '../ir/path.js';
import { evalFailure } from './failure.js';
import type { Location, Scope } from './scope.js';
import type { EvalState } from './state.js';

/** A value found by a path, and where it sits in `object` when it is part of it. */
export interface Place {
  value: JsonValue;
  location?: Location;
}

/** The document a path starts from, with its location when that document is `object`. */
export function rootOf(st: EvalState, path: Path, scope: Scope): { value: JsonValue | undefined; location?: Location; skip: number } {
  switch (path.root) {
    case 'object':
      return { value: st.object ?? undefined, location: [], skip: 0 };
    case 'oldObject':
      return { value: st.request.oldObject ?? undefined, skip: 0 };
    case 'params':
      return { value: st.request.params ?? undefined, skip: 0 };
    case 'namespaceObject':
      return { value: st.request.namespaceObject ?? undefined, skip: 0 };
    case 'request':
      return { value: requestDocument(st), skip: 0 };
    case 'vars': {
      const first = path.segments[0];
      if (!first || first.kind !== 'field') throw evalFailure('TM3007', 'a vars path must start with a variable name', path.origin);
      const binding = scope.lookup(first.name);
      if (!binding) throw evalFailure('TM3007', `variable "${first.name}" is not bound here`, path.origin);
      if (binding.location) {
        // Read through to the current object, so ops earlier in a loop body are visible to later ones.
        const current = readLocation(st.object ?? undefined, binding.location);
        return { value: current, location: binding.location, skip: 1 };
      }
      return { value: binding.value, skip: 1 };
    }
  }
}

/** The admission request as a JSON document, for `request.*` paths (built once per evaluation). */
const requestDocs = new WeakMap<object, JsonValue>();
function requestDocument(st: EvalState): JsonValue {
  const cached = requestDocs.get(st.request);
  if (cached !== undefined) return cached;
  const r = st.request;
  const doc: JsonValue = JSON.parse(
    JSON.stringify({
      operation: r.operation,
      userInfo: r.userInfo ?? {},
      kind: r.kind,
      resource: r.resource,
      subResource: r.subResource,
      namespace: r.namespace,
      name: r.name,
      dryRun: r.dryRun ?? false,
      source: r.source ?? 'Original',
    }),
  );
  requestDocs.set(st.request, doc);
  return doc;
}

export function readLocation(doc: JsonValue | undefined, location: Location): JsonValue | undefined {
  let cur: JsonValue | undefined = doc;
  for (const key of location) {
    if (typeof key === 'number') cur = Array.isArray(cur) ? cur[key] : undefined;
    else cur = isJsonObject(cur) && hasOwn(cur, key) ? cur[key] : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Every place the path reaches (several for globs and each segments); missing places are left out. */
export function readPlaces(st: EvalState, path: Path, scope: Scope): Place[] {
  const root = rootOf(st, path, scope);
  const out: Place[] = [];
  if (root.value === undefined) return out;
  collect(root.value, root.location, path.segments, root.skip, out);
  return out;
}

/** The first value the path reaches, without collecting places: guards and ref values ask only this. */
export function readFirst(st: EvalState, path: Path, scope: Scope): JsonValue | undefined {
  const root = rootOf(st, path, scope);
  if (root.value === undefined) return undefined;
  return first(root.value, path.segments, root.skip);
}

function first(cur: JsonValue, segs: Segment[], i: number): JsonValue | undefined {
  for (; i < segs.length; i++) {
    const seg = segs[i]!;
    switch (seg.kind) {
      case 'field':
        if (!isJsonObject(cur) || !hasOwn(cur, seg.name)) return undefined;
        cur = cur[seg.name]!;
        break;
      case 'index': {
        if (!Array.isArray(cur)) return undefined;
        const idx = seg.index < 0 ? cur.length + seg.index : seg.index;
        if (idx < 0 || idx >= cur.length) return undefined;
        cur = cur[idx]!;
        break;
      }
      case 'append':
        return undefined;
      default: {
        // Multi-place segments: the first element that leads somewhere.
        if (!Array.isArray(cur)) return undefined;
        for (const el of cur) {
          if (seg.kind === 'keyed' && !(isJsonObject(el) && hasOwn(el, seg.key) && el[seg.key] === seg.value)) continue;
          if (seg.kind === 'keyedGlob' && !isJsonObject(el)) continue;
          const found = first(el, segs, i + 1);
          if (found !== undefined) return found;
        }
        return undefined;
      }
    }
  }
  return cur;
}

function collect(cur: JsonValue, location: Location | undefined, segs: Segment[], i: number, out: Place[]): void {
  if (i === segs.length) {
    out.push(location ? { value: cur, location } : { value: cur });
    return;
  }
  const seg = segs[i]!;
  const at = (key: string | number) => (location ? [...location, key] : undefined);
  switch (seg.kind) {
    case 'field':
      if (isJsonObject(cur) && hasOwn(cur, seg.name)) collect(cur[seg.name]!, at(seg.name), segs, i + 1, out);
      return;
    case 'index': {
      if (!Array.isArray(cur)) return;
      const idx = seg.index < 0 ? cur.length + seg.index : seg.index;
      if (idx >= 0 && idx < cur.length) collect(cur[idx]!, at(idx), segs, i + 1, out);
      return;
    }
    case 'append':
      return;
    case 'keyed':
      if (!Array.isArray(cur)) return;
      cur.forEach((el, idx) => {
        if (isJsonObject(el) && hasOwn(el, seg.key) && el[seg.key] === seg.value) collect(el, at(idx), segs, i + 1, out);
      });
      return;
    case 'keyedGlob':
      if (!Array.isArray(cur)) return;
      cur.forEach((el, idx) => {
        if (isJsonObject(el)) collect(el, at(idx), segs, i + 1, out);
      });
      return;
    case 'each':
      if (!Array.isArray(cur)) return;
      cur.forEach((el, idx) => collect(el, at(idx), segs, i + 1, out));
      return;
  }
}
