/**
 * `a.b.c` field paths, the most common Kyverno query (`request.object.metadata.labels.tier`), read as
 * go-jmespath and the Kyverno fork read them: a field of anything but a map is null, a map without the
 * field is the NotFound failure `Unknown key "b" in path`, a missing value is null.
 *
 * A loop over the names makes one property read see every name and every map of every path: V8 then looks
 * each read up in its global cache. The generated reader (one per path) reads each name at its own site,
 * which stays monomorphic; the loop is the reference, and the reader where code cannot be generated (a
 * content security policy) or a name is one Object.prototype has. Names are written as JSON string
 * literals: nothing from a query is ever spliced in as code.
 */
import { hasOwn } from '../ir/json.js';
import { ExpRef, type Evaluator } from './functions/registry.js';
import { failure, type JmesFailure } from './types.js';

function notFoundFailure(name: string): JmesFailure {
  return failure('NotFound', `Unknown key "${name}" in path`);
}

/** The reader of one field path. */
export function fieldPathReader(path: readonly string[]): Evaluator {
  // A name Object.prototype lacks reads as undefined unless it is an own field (data is plain or
  // null-prototype JSON), so the own-field test runs only for a miss; `toString`, `__proto__`... test first.
  if (path.some((name) => name in Object.prototype)) return carefulReader(path);
  // Failures are immutable: one per name, made once (a miss under `||` is common: `a.b || ''`).
  const notFound = path.map(notFoundFailure);
  return generatedReader(path, notFound) ?? loopReader(path, notFound);
}

/** The reference reader for names Object.prototype has: the own-field test first. */
export function carefulReader(path: readonly string[]): Evaluator {
  return (v) => {
    let cur = v;
    for (const name of path) {
      if (cur === null || cur === undefined || typeof cur !== 'object' || Array.isArray(cur) || cur instanceof ExpRef) return null;
      if (!hasOwn(cur, name)) return notFoundFailure(name);
      cur = (cur as Record<string, unknown>)[name];
    }
    return cur === undefined ? null : cur;
  };
}

/** The reference reader for names Object.prototype lacks. */
export function loopReader(path: readonly string[], notFound: readonly JmesFailure[] = path.map(notFoundFailure)): Evaluator {
  return (v) => {
    let cur = v;
    for (let i = 0; i < path.length; i++) {
      if (cur === null || cur === undefined || typeof cur !== 'object' || Array.isArray(cur) || cur instanceof ExpRef) return null;
      const name = path[i]!;
      const next = (cur as Record<string, unknown>)[name];
      if (next === undefined && !hasOwn(cur, name)) return notFound[i];
      cur = next;
    }
    return cur === undefined ? null : cur;
  };
}

type ReaderFactory = (hasOwnField: typeof hasOwn, expRef: typeof ExpRef, notFound: readonly JmesFailure[]) => Evaluator;

/** loopReader unrolled into straight-line code; undefined where code cannot be generated. */
export function generatedReader(path: readonly string[], notFound: readonly JmesFailure[] = path.map(notFoundFailure)): Evaluator | undefined {
  const steps = path.map((name, i) => {
    const key = JSON.stringify(name);
    return (
      `if (c === null || c === undefined || typeof c !== 'object' || Array.isArray(c) || c instanceof E) return null; ` +
      `n = c[${key}]; if (n === undefined && !own(c, ${key})) return nf[${i}]; c = n;`
    );
  });
  const body = `'use strict'; return (v) => { let c = v; let n; ${steps.join(' ')} return c === undefined ? null : c; };`;
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const factory = new Function('own', 'E', 'nf', body) as ReaderFactory;
    return factory(hasOwn, ExpRef, notFound);
  } catch (e) {
    if (e instanceof EvalError) return undefined;
    throw e;
  }
}
