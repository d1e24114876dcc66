/**
 * What a generated program needs to build a mutation's JSON result directly (codegen.ts, `evalJson`), rather
 * than a CEL value that mutation.ts mutationResultToJson then converts: the conversion of the values it does
 * not build itself, at their position, and of constants, made once.
 *
 * Exactness: the reference converts after the whole evaluation, and a type-name problem anywhere wins over a
 * conversion error; a direct program converts part by part while it evaluates. So a conversion that fails
 * here never reports: it throws NEEDS_REFERENCE, and the evaluator evaluates again the reference way (CEL is
 * pure, so to the same value), whose conversion says what fails, as it would have.
 */
import { jsonAt, mutationResultToJson, patchFieldNotString, patchValueJson } from './mutation.js';

/** Thrown by the helpers below: not a CelError, so `&&`, `||` and comprehensions never absorb it (isFatal). */
export const NEEDS_REFERENCE: unique symbol = Symbol('direct JSON needs the reference conversion');

/** jsonAt, or NEEDS_REFERENCE. */
export function directJsonAt(v: unknown, parent: string, field: string | undefined): unknown {
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  try {
    return jsonAt(v, parent, field);
  } catch {
    throw NEEDS_REFERENCE;
  }
}

/** mutationResultToJson, or NEEDS_REFERENCE. */
export function directResultJson(v: unknown): unknown {
  try {
    return mutationResultToJson(v);
  } catch {
    throw NEEDS_REFERENCE;
  }
}

/** patchValueJson, or NEEDS_REFERENCE. */
export function directPatchValueJson(v: unknown): unknown {
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  try {
    return patchValueJson(v);
  } catch {
    throw NEEDS_REFERENCE;
  }
}

/**
 * `convert(v)` made once for a constant, as a frozen copy (every evaluation shares it; the CEL constant stays
 * as it is), or undefined when it fails: then each evaluation converts it, and fails, as the reference does.
 */
export function constantJson(convert: () => unknown): { json: unknown } | undefined {
  let json: unknown;
  try {
    json = convert();
  } catch {
    return undefined;
  }
  return { json: frozenCopy(json) };
}

function frozenCopy(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return Object.freeze(v.map(frozenCopy));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = frozenCopy((v as Record<string, unknown>)[k]);
    if (k === '__proto__') Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return Object.freeze(out);
}

/** The helpers generated direct-JSON code names (`h_name`). */
export const DIRECT_JSON_HELPERS = Object.freeze({
  NEEDS_REFERENCE,
  jsonAt: directJsonAt,
  resultJson: directResultJson,
  patchValueJson: directPatchValueJson,
  patchFieldNotString,
});
