/**
 * What gopkg.in/evanphx/json-patch v4 and v5 share (patch.go in both): Go's strconv.Atoi, the RFC 6901 key
 * decoder, partialArray's index rules, the error words, and one error carried out of a step.
 */
import { goQuote } from '../k8s/go-strings.js';
import type { PatchOutcome, PatchStep } from './apply.js';

export const ERR_MISSING = 'missing value';
export const ERR_INVALID_INDEX = 'invalid index referenced';
export const ERR_TEST_FAILED = 'test failed';
/** What a Go nil-pointer dereference looks like once the apiserver recovers the panic. */
export const NIL_DEREFERENCE = 'runtime error: invalid memory address or nil pointer dereference';

/** A step failed with upstream's message; the patch stops there. */
export class EvanphxError {
  constructor(
    readonly kind: 'error' | 'testFailed',
    readonly message: string,
    /** v5: the error wraps ErrMissing (errors.Unwrap(err) == ErrMissing). */
    readonly missing = false,
  ) {}
}

export const fail = (message: string, missing = false): never => {
  throw new EvanphxError('error', message, missing);
};

/** strconv.Atoi: optional sign and decimal digits, within int64. */
export function atoi(key: string): number {
  if (!/^[+-]?\d+$/.test(key)) return fail(`strconv.Atoi: parsing ${goQuote(key)}: invalid syntax`);
  const n = BigInt(key);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return fail(`strconv.Atoi: parsing ${goQuote(key)}: value out of range`);
  return Number(n);
}

/** rfc6901Decoder: "~1" then "~0", in one left-to-right pass (strings.NewReplacer). */
export function decodeKey(k: string): string {
  return k.includes('~') ? k.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~')) : k;
}

function invalidIndex(idx: number): never {
  return fail(`Unable to access invalid index: ${idx}: ${ERR_INVALID_INDEX}`);
}

/** partialArray.get's index rules: negative from the end, out of range fails. */
export function arrayGetIndex(arr: readonly unknown[], key: string): number {
  let idx = atoi(key);
  if (idx < 0) {
    if (idx < -arr.length) invalidIndex(idx);
    idx += arr.length;
  }
  if (idx >= arr.length) invalidIndex(idx);
  return idx;
}

/** partialArray.add's insertion index (a key other than `-`): 0..len, negative from the end (`-1` appends). */
export function arrayAddIndex(arr: readonly unknown[], key: string): number {
  let idx: number;
  try {
    idx = atoi(key);
  } catch (e) {
    if (e instanceof EvanphxError) return fail(`value was not a proper array index: '${key}': ${e.message}`);
    throw e;
  }
  const size = arr.length + 1;
  if (idx >= size) invalidIndex(idx);
  if (idx < 0) {
    if (idx < -size) invalidIndex(idx);
    idx += size;
  }
  return idx;
}

/** Runs the steps in order; the first failure ends the patch and is its outcome (undefined: every step ran). */
export function firstFailure(steps: readonly PatchStep[], run: (step: PatchStep) => void): PatchOutcome | undefined {
  for (let i = 0; i < steps.length; i++) {
    try {
      run(steps[i]!);
    } catch (e) {
      if (e instanceof EvanphxError) return { ok: false, kind: e.kind, message: e.message, step: i };
      throw e;
    }
  }
  return undefined;
}
