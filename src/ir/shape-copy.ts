/**
 * Shallow copies of JSON maps by their shape (issue 17). Object.assign into `{}` (json-copy.ts copyForNewKeys)
 * adds the keys one by one, following a transition per key: about 70 ns for a Pod's root or metadata. An
 * object literal naming the same keys is made from V8's boilerplate in one step (about 15 ns) and its map
 * takes ordinary transitions for keys added afterwards, so the copy stays fast to grow (which an object
 * spread's does not, see json-copy.ts). The maps of one kind of object nearly always come with the same keys
 * in the same order, so a literal is generated per key list met ("shape") and reused: a map is checked
 * against the shapes that begin with its first key, key by key in enumeration order, and a map that matches
 * none is copied by the caller. Shapes are learned up to a bound, so that maps of arbitrary keys (labels,
 * annotations) cost a bounded number of compilations and look-ups.
 *
 * The copy is the caller's: same keys, same order (a literal's order is its source order, array-index keys
 * first either way), plain writable data properties on Object.prototype. A `__proto__` key (a literal would
 * set the prototype with it) and inherited keys are never part of a shape.
 */
import { hasOwn, type JsonObject } from './json.js';

interface Shape {
  readonly keys: readonly string[];
  readonly make: (m: JsonObject) => JsonObject;
}

/** Larger maps are rare among Kubernetes objects' maps; V8 builds literals of more keys differently. */
const MAX_SHAPE_KEYS = 24;
/** A map is compared with at most this many shapes before the caller copies it. */
const SHAPES_PER_FIRST_KEY = 4;
/** Compilations over the process's life (each a few tens of microseconds). */
const MAX_SHAPES = 2048;

const shapesByFirstKey = new Map<string, Shape[]>();
let shapeCount = 0;
/** False once code generation is refused (a content security policy) or the bound is reached. */
let learning = true;

/** A copy of `m` made by its shape's literal, or undefined when no shape is known for it (the caller copies). */
export function copyByShape(m: JsonObject): JsonObject | undefined {
  let first: string | undefined;
  for (const key in m) {
    first = key;
    break;
  }
  if (first === undefined) return undefined;
  const shapes = shapesByFirstKey.get(first);
  if (shapes !== undefined) {
    for (let s = 0; s < shapes.length; s++) {
      const shape = shapes[s]!;
      if (hasShape(m, shape.keys)) return shape.make(m);
    }
    if (shapes.length >= SHAPES_PER_FIRST_KEY) return undefined;
  }
  if (learning) learn(m, first, shapes);
  return undefined;
}

/** Whether `m` enumerates exactly `keys`, in order. */
function hasShape(m: JsonObject, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in m) {
    if (key !== keys[i]) return false;
    i++;
  }
  return i === keys.length;
}

function learn(m: JsonObject, first: string, shapes: Shape[] | undefined): void {
  const keys: string[] = [];
  for (const key in m) {
    if (!hasOwn(m, key) || key === '__proto__' || keys.length === MAX_SHAPE_KEYS) return;
    keys.push(key);
  }
  const make = literalMaker(keys);
  if (make === undefined) return;
  const shape: Shape = { keys, make };
  if (shapes === undefined) shapesByFirstKey.set(first, [shape]);
  else shapes.push(shape);
  if (++shapeCount >= MAX_SHAPES) learning = false;
}

/** `(m) => ({k1: m[k1], …})`: keys and reads are JSON string literals, never code from the document. */
function literalMaker(keys: readonly string[]): ((m: JsonObject) => JsonObject) | undefined {
  const members = keys.map((k) => `${JSON.stringify(k)}: m[${JSON.stringify(k)}]`).join(', ');
  try {
    return new Function('m', `"use strict"; return { ${members} };`) as (m: JsonObject) => JsonObject;
  } catch (e) {
    if (e instanceof EvalError) {
      learning = false;
      return undefined;
    }
    throw e;
  }
}
