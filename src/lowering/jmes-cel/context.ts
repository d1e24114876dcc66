/** The state one compilation threads through: scope, target capabilities, fresh names and notes. */
import type { Mode } from './access.js';
import { Names, type Frag } from './frag.js';
import type { Caps } from './target.js';
import type { Ty } from './types.js';

/**
 * What a Kyverno context name means in CEL: a CEL text (`{ cel: 'object' }`), or a map resolved field by field
 * at compile time (`request` → its `fields`), or both. `type` is the JSON type the caller guarantees the value
 * has, Kyverno's value and the CEL's alike (types.ts; dyn when absent): it lets the compiler drop checks the
 * type makes useless. A wrong type gives wrong CEL, so only what is guaranteed belongs there.
 */
export type Binding =
  | { cel: string; type?: Ty }
  | { fields: Record<string, Binding>; cel?: string; type?: Ty }
  /** A map with no CEL value of its own, looked up by key (`images.containers`): the value at one key. */
  | { keyed: (key: Frag, mode: Mode, cx: Cx) => Frag; what: string; whole?: (mode: Mode, cx: Cx) => Frag };

export interface JmesCelScope {
  /** What a JMESPath root identifier (first field of the expression) means in CEL; undefined = not available in the target. */
  root(name: string): Binding | undefined;
  /**
   * Whether Kyverno's context holds no `name` where the expression runs (no context entry of the rule binds
   * it): it is then read as a missing key. A scope that cannot tell leaves it out, and such names are refused.
   */
  absent?(name: string): boolean;
  /**
   * The context entries bound where the expression runs, in the order Kyverno adds their deferred loaders
   * (the rule's, then a foreach's): a query loads each one its text mentions (deferred.ts).
   */
  deferred?(): readonly string[];
  /**
   * The value the expression is queried on, where it is not Kyverno's context but one document (an `apiCall`
   * entry's `jmesPath` runs on the API server's response): its fields are then that value's, and `@` at the
   * top is the value itself. `root` and `absent` are not asked.
   */
  readonly document?: { cel: string; type?: Ty };
}

export interface Cx {
  scope: JmesCelScope;
  caps: Caps;
  names: Names;
  /** Assumptions under which the emitted CEL is exact; the caller turns them into warnings. */
  notes: Set<string>;
  /**
   * Field names that stand for the text of a value spliced in by an inner `{{ }}` hole (template.ts): the
   * key is that text, known at runtime only.
   */
  dynamicKeys?: Map<string, Frag>;
  /** Raw string literals (`'…'`) that stand for the text of a value spliced in by an inner `{{ }}` hole. */
  dynamicStrings?: Map<string, Frag>;
}

export function newCx(scope: JmesCelScope, caps: Caps): Cx {
  return { scope, caps, names: new Names(), notes: new Set() };
}
