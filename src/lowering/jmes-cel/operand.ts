/**
 * Partial evaluation for Kyverno's condition operators. A condition's key and value are either known when
 * the policy is compiled (literals) or only at runtime (substituted variables). The operators are written
 * once (operators.ts) over `Operand`s; every predicate answers a boolean when the operand is static and a
 * CEL condition otherwise, and the combinators fold constants, so a condition against a literal compiles to
 * the few tests it needs.
 *
 * The CEL conditions built here never fail on a well-typed operand. A test that only makes sense for one
 * type (isQuantity() of a string) is always conjoined with that type's test, and CEL's `&&` turns
 * `false && <error>` into false, which is exactly the short-circuit wanted.
 */
import { parseDuration } from '../../jmespath/functions/duration.js';
import { parseQuantity } from '../../jmespath/functions/quantity.js';
import { wildcardMatch as goWildcard } from '../../jmespath/index.js';
import { jsonEqual } from '../../ir/json.js';
import { celNumber, literal } from './literal.js';
import { celString, tyOf, type Frag, type SType } from './frag.js';
import { isPlainString } from './types.js';
import { negate } from './inline.js';
import { wildcardRegex, dynamicWildcardRegex } from './wildcard.js';

/** A boolean known statically, or a CEL bool expression. */
export type B = boolean | string;
/** A number known statically, or a CEL double expression. */
export type N = number | string;

export function and(...bs: B[]): B {
  if (bs.some((b) => b === false)) return false;
  const dyn = [...new Set(bs.filter((b): b is string => typeof b === 'string'))];
  return dyn.length === 0 ? true : dyn.length === 1 ? dyn[0]! : dyn.map((b) => (topLevel(b, ['||', '?']) ? `(${b})` : b)).join(' && ');
}

export function or(...bs: B[]): B {
  if (bs.some((b) => b === true)) return true;
  const dyn = [...new Set(bs.filter((b): b is string => typeof b === 'string'))];
  // `&&` inside `||` is parenthesised although it binds tighter: for the reader.
  return dyn.length === 0 ? false : dyn.length === 1 ? dyn[0]! : dyn.map((b) => (topLevel(b, ['&&', '?']) ? `(${b})` : b)).join(' || ');
}

/** Whether CEL text has one of the operators outside parentheses, brackets and string literals. */
export function topLevel(cel: string, ops: readonly ('&&' | '||' | '?')[]): boolean {
  let depth = 0;
  for (let i = 0; i < cel.length; i++) {
    const c = cel[i]!;
    if (c === '"' || c === "'") {
      for (i++; i < cel.length && cel[i] !== c; i++) if (cel[i] === '\\') i++;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (depth === 0) {
      const two = cel.slice(i, i + 2);
      if ((two === '&&' || two === '||') && ops.includes(two)) return true;
      // A `?` of a ternary (not `.?f` nor `[?`).
      if (c === '?' && ops.includes('?') && cel[i - 1] === ' ') return true;
    }
  }
  return false;
}

export function not(b: B): B {
  return typeof b === 'boolean' ? !b : negate(b);
}

/** `c ? a : b` over numbers. */
export function pick(c: B, a: N, b: N): N {
  if (c === true) return a;
  if (c === false) return b;
  return `(${c} ? ${num(a)} : ${num(b)})`;
}

/** A number as a CEL double (all of Kyverno's numbers are float64). */
export function num(n: N): string {
  if (typeof n !== 'number') return n;
  if (Number.isNaN(n)) return 'double("nan")';
  if (!Number.isFinite(n)) return n > 0 ? 'double("inf")' : 'double("-inf")';
  return Number.isSafeInteger(n) ? `${n}.0` : celNumber(n);
}

export type Cmp = '==' | '<' | '<=' | '>' | '>=';

export function compare(op: Cmp, a: N, b: N): B {
  if (typeof a === 'number' && typeof b === 'number') {
    switch (op) {
      case '==':
        return a === b;
      case '<':
        return a < b;
      case '<=':
        return a <= b;
      case '>':
        return a > b;
      case '>=':
        return a >= b;
    }
  }
  // Kubernetes CEL compares ints and doubles across types: an integral constant reads as an int.
  const side = (n: N): string => (typeof n === 'number' && Number.isSafeInteger(n) ? String(n) : num(n));
  return `${side(a)} ${op} ${side(b)}`;
}

/** strconv.ParseFloat's accepted forms as operators.ts parseFloatGo takes them. */
const FLOAT = '^[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?$|^(?i:[+-]?(inf|infinity|nan))$';
/** time.ParseDuration's grammar (overflow aside). */
const DURATION = '^[-+]?(0|(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h))+)$';

export function parseFloatGo(s: string): number | undefined {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) && !/^[+-]?(inf|infinity|nan)$/i.test(s)) return undefined;
  return Number(s.toLowerCase().replace('infinity', 'Infinity').replace(/^([+-]?)inf$/, '$1Infinity'));
}

function mayBeDuration(s: string): boolean {
  let c = s.charCodeAt(0);
  if (c === 43 || c === 45) c = s.charCodeAt(1);
  return c === 46 || (c >= 48 && c <= 57);
}

export function durationSecondsOf(s: string): number | undefined {
  if (!mayBeDuration(s)) return undefined;
  const d = parseDuration(s);
  return d.ok ? Number(d.ns) / 1e9 : undefined;
}

/** A condition operand: a simple CEL fragment, and its JSON value when known. */
export class Operand {
  constructor(
    readonly f: Frag,
    readonly stat: { value: unknown } | undefined,
  ) {}

  static of(f: Frag): Operand {
    return new Operand(f, f.lit);
  }

  static literal(value: unknown): Operand {
    return new Operand(literal(value), { value });
  }

  get cel(): string {
    return this.f.cel;
  }

  private typeTest(js: (v: unknown) => boolean, types: SType[], cel: string): B {
    if (this.stat) return js(this.stat.value);
    if (this.f.t !== 'dyn') return types.includes(this.f.t);
    return cel;
  }

  isStr(): B {
    return this.typeTest((v) => typeof v === 'string', ['string'], `type(${this.cel}) == string`);
  }
  isNum(): B {
    return this.typeTest((v) => typeof v === 'number', ['int', 'double', 'number'], `(type(${this.cel}) == int || type(${this.cel}) == double)`);
  }
  isBool(): B {
    return this.typeTest((v) => typeof v === 'boolean', ['bool'], `type(${this.cel}) == bool`);
  }
  isNull(): B {
    return this.typeTest((v) => v === null || v === undefined, ['null'], `type(${this.cel}) == null_type`);
  }
  isList(): B {
    return this.typeTest((v) => Array.isArray(v), ['list'], `type(${this.cel}) == list`);
  }
  isMap(): B {
    return this.typeTest((v) => v !== null && typeof v === 'object' && !Array.isArray(v), ['map'], `type(${this.cel}) == map`);
  }

  /**
   * The value as a number (only meaningful when it is one). Kubernetes CEL compares ints and doubles across
   * types, so a value known to be a number is compared as it is.
   */
  number(): N {
    if (this.stat && typeof this.stat.value === 'number') return this.stat.value;
    return this.f.t === 'int' || this.f.t === 'double' || this.f.t === 'number' ? this.cel : `double(${this.cel})`;
  }

  /** A Go duration string, and its float seconds (time.Duration.Seconds()). */
  duration(): { is: B; secs: N } {
    if (this.stat) {
      const v = this.stat.value;
      const secs = typeof v === 'string' ? durationSecondsOf(v) : undefined;
      return secs === undefined ? { is: false, secs: 0 } : { is: true, secs };
    }
    return {
      is: and(this.isStr(), `${this.cel}.matches(${celString(DURATION)})`),
      // cel-go prints a duration as strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s": parsing it back is d.Seconds().
      secs: `double(string(duration(${this.cel})).replace("s", ""))`,
    };
  }

  /** A Kubernetes quantity string (resource.ParseQuantity). */
  quantity(): B {
    if (this.stat) return typeof this.stat.value === 'string' && parseQuantity(this.stat.value) !== undefined;
    return and(this.isStr(), `isQuantity(${this.cel})`);
  }

  quantityCel(): string {
    return `quantity(${this.cel})`;
  }

  /** A string strconv.ParseFloat accepts, and its value. */
  float(): { is: B; value: N } {
    if (this.stat) {
      const v = this.stat.value;
      const f = typeof v === 'string' ? parseFloatGo(v) : undefined;
      return f === undefined ? { is: false, value: 0 } : { is: true, value: f };
    }
    return { is: and(this.isStr(), `${this.cel}.matches(${celString(FLOAT)})`), value: `double(${this.cel})` };
  }

  /** A strict semantic version (blang/semver Parse), as Kubernetes' isSemver() checks it. */
  semver(): B {
    if (this.stat) {
      const v = this.stat.value;
      return typeof v === 'string' && /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.test(v);
    }
    return and(this.isStr(), `isSemver(${this.cel})`);
  }

  stringValue(): string | undefined {
    return this.stat && typeof this.stat.value === 'string' ? this.stat.value : undefined;
  }

  /** A string known to hold none of `* ? { } \` (no wildcard). */
  plain(): boolean {
    return isPlainString(tyOf(this.f));
  }
}

/** CEL/JSON deep equality of two operands. */
export function deepEqual(a: Operand, b: Operand): B {
  if (a.stat && b.stat) return jsonEqual(a.stat.value, b.stat.value);
  // Two values of one scalar type compare plainly; a bool with a literal is itself or its negation.
  if (a.f.t === b.f.t && (a.f.t === 'string' || a.f.t === 'bool' || a.f.t === 'int')) {
    const lit = b.stat ?? a.stat;
    const other = b.stat ? a : b;
    if (a.f.t === 'bool' && lit) return lit.value === true ? other.cel : negate(other.cel);
    return `${a.cel} == ${b.cel}`;
  }
  return `dyn(${a.cel}) == dyn(${b.cel})`;
}

/** wildcard.Match(pattern, subject) over two string operands. */
export function wildcard(pattern: Operand, subject: Operand): B {
  const p = pattern.stringValue();
  const s = subject.stringValue();
  if (p !== undefined && s !== undefined) return goWildcard(p, s);
  if (p !== undefined) {
    if (p === '*') return true;
    if (!p.includes('*') && !p.includes('?')) return `${subject.cel} == ${celString(p)}`;
    return `${subject.cel}.matches(${celString(wildcardRegex(p))})`;
  }
  // A pattern known to hold no `*` or `?` matches only itself.
  if (pattern.plain()) return `${subject.cel} == ${pattern.cel}`;
  return `${subject.cel}.matches(${dynamicWildcardRegex(pattern.f)})`;
}
