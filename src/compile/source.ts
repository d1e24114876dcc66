/**
 * Building generated source: literals and the one place that turns source into a function. Every value
 * written into source is either a JSON scalar (printed with JSON.stringify, a valid JavaScript literal) or a
 * slot of the constants array the function receives; nothing from a policy is ever spliced in as code.
 */
import type { JsonScalar } from '../ir/json.js';
import { HELPERS, type Helpers } from './helpers.js';

/** A JavaScript literal for a JSON scalar or a property name. */
export function literal(v: JsonScalar): string {
  return v === null ? 'null' : JSON.stringify(v);
}

/** Collects the non-literal values generated code refers to (segments, leaves, origins) as `k[i]`. */
export class Constants {
  readonly values: unknown[] = [];

  ref(v: unknown): string {
    let i = this.values.indexOf(v);
    if (i < 0) i = this.values.push(v) - 1;
    return `k[${i}]`;
  }
}

/**
 * Turns `body` (the statements of a factory that returns the generated function) into that function.
 * `new Function` is refused where a content security policy forbids it: the caller then keeps its closure.
 */
export function instantiate<F>(body: string, constants: Constants): F | undefined {
  try {
    const factory = new Function('h', 'k', `"use strict";\n${body}`) as (h: Helpers, k: unknown[]) => F;
    return factory(HELPERS, constants.values);
  } catch (e) {
    if (e instanceof EvalError) return undefined;
    throw e;
  }
}
