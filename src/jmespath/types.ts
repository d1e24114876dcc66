/**
 * Value and error model of the JMESPath evaluator. Values are plain JSON (numbers are float64 as in
 * go-jmespath); errors are values of class `JmesFailure` so the hot path never throws.
 */

export type JmesErrorKind = 'NotFound' | 'InvalidType' | 'InvalidArity' | 'UnknownFunction' | 'Runtime' | 'Unsupported';

export interface JmesError {
  kind: JmesErrorKind;
  message: string;
}

/** The outcome of one evaluation: a JSON value or an error value carrying Kyverno's message. */
export type JmesResult = { ok: true; value: unknown } | { ok: false; error: JmesError };

/**
 * An error travelling through the evaluator. Data values are JSON, never class instances, so
 * `instanceof JmesFailure` cleanly separates errors from results without exceptions.
 */
export class JmesFailure implements JmesError {
  constructor(
    readonly kind: JmesErrorKind,
    readonly message: string,
  ) {}
}

export function failure(kind: JmesErrorKind, message: string): JmesFailure {
  return new JmesFailure(kind, message);
}

export function isFailure(v: unknown): v is JmesFailure {
  return v instanceof JmesFailure;
}

/** kyverno pkg/engine/jmespath/errors.go NotFoundError. */
export function notFound(key: string): JmesFailure {
  return new JmesFailure('NotFound', `Unknown key "${key}" in path`);
}

/** A deterministic source of randomness; `next()` returns a float in [0, 1). */
export interface JmesRandom {
  next(): number;
}

/** The outside world as seen by Kyverno's functions, supplied by the caller so runs are reproducible. */
export interface JmesContext {
  /** Current time for `time_now`, `time_now_utc` and `time_since` with an empty end; defaults to the wall clock. */
  clock?: () => Date;
  /** Random source for `random()`; defaults to a fixed-seed generator so runs are reproducible. */
  random?: JmesRandom;
  /** Kyverno configuration used by `image_normalize` (defaults: docker.io, mutation enabled). */
  defaultRegistry?: string;
  enableDefaultRegistryMutation?: boolean;
  /** DNS answers for `is_external_url` (host → IP addresses); without it, non-literal hosts are an error. */
  resolveHost?: (host: string) => string[] | undefined;
}

/** A seeded PRNG (mulberry32): small, fast and good enough for generating strings that match a regex. */
export function seededRandom(seed: number): JmesRandom {
  let state = seed >>> 0;
  return {
    next(): number {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}
