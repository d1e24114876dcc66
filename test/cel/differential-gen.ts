/**
 * Seeded generator of CEL expressions for the differential tests, and canonical printers that put the
 * results of transmute, @bufbuild/cel and @marcbachmann/cel-js in one comparable text form.
 *
 * The generator is type-directed (each production yields a value of the requested CEL type, or an
 * error such as overflow or division by zero), so most expressions are meaningful rather than
 * no-such-overload noise. Heterogeneous forms (int == double, mixed map keys) are generated on purpose:
 * where the two reference libraries disagree about them, the test has no consensus and skips them.
 */
import * as buf from '@bufbuild/cel';
import * as marc from '@marcbachmann/cel-js';
import { CelDouble, CelMap, CelOptional, CelUint, isPlainMap } from '../../src/cel/values.js';
import { mulberry32 } from '../support/random.js';

/** mulberry32 (test/support/random.ts): small, fast, reproducible. */
export const rng = mulberry32;

type Ty = 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'bool' | 'list' | 'map' | 'optional';

export class ExprGen {
  private readonly r: () => number;
  constructor(seed: number) {
    this.r = rng(seed);
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)]!;
  }

  private chance(p: number): boolean {
    return this.r() < p;
  }

  /** One top-level expression of a random type. */
  next(): string {
    const t = this.pick<Ty>(['int', 'int', 'uint', 'double', 'string', 'string', 'bytes', 'bool', 'bool', 'bool', 'list', 'map', 'optional']);
    return this.gen(t, 3);
  }

  gen(t: Ty, d: number): string {
    const leaf = d <= 0 || this.chance(0.3);
    switch (t) {
      case 'int':
        return leaf ? this.intLit() : this.intExpr(d - 1);
      case 'uint':
        return leaf ? this.pick(['0u', '1u', '7u', '18446744073709551615u', '9223372036854775808u']) : this.uintExpr(d - 1);
      case 'double':
        return leaf ? this.pick(['0.0', '-0.0', '1.5', '2.0', '-3.25', '1e300', '0.1', '1e-5']) : this.doubleExpr(d - 1);
      case 'string':
        return leaf ? this.pick(['""', '"a"', '"abc"', '"Hello"', '"é✓"', '"a b c"', "'x\\ty'", '"\\u00e9"', 'r"\\d"']) : this.stringExpr(d - 1);
      case 'bytes':
        return leaf ? this.pick(['b""', 'b"ab"', 'b"\\xff\\x00"', "b'z'"]) : this.bytesExpr(d - 1);
      case 'bool':
        return leaf ? this.pick(['true', 'false']) : this.boolExpr(d - 1);
      case 'list':
        return this.listExpr(Math.max(d - 1, 0));
      case 'map':
        return this.mapExpr(Math.max(d - 1, 0));
      case 'optional':
        return this.optionalExpr(Math.max(d - 1, 0));
    }
  }

  private intLit(): string {
    return this.pick(['0', '1', '2', '-1', '7', '-13', '100', '9223372036854775807', '-9223372036854775808', '4611686018427387904', '0x10', '3']);
  }

  private intExpr(d: number): string {
    const a = () => this.gen('int', d);
    switch (Math.floor(this.r() * 12)) {
      case 0:
        return `${a()} + ${a()}`;
      case 1:
        return `${a()} - ${a()}`;
      case 2:
        return `(${a()}) * (${a()})`;
      case 3:
        return `(${a()}) / (${a()})`;
      case 4:
        return `(${a()}) % (${a()})`;
      case 5:
        return `-(${a()})`;
      case 6:
        return `size(${this.gen('string', d)})`;
      case 7:
        return `size(${this.gen('list', d)})`;
      case 8:
        return `int(${this.gen(this.pick<Ty>(['double', 'uint', 'string']), d)})`;
      case 9:
        return `${this.gen('bool', d)} ? ${a()} : ${a()}`;
      case 10:
        return `[${a()}, ${a()}][${this.pick(['0', '1', '2'])}]`;
      default:
        return `{"k": ${a()}}.k`;
    }
  }

  private uintExpr(d: number): string {
    const a = () => this.gen('uint', d);
    switch (Math.floor(this.r() * 6)) {
      case 0:
        return `${a()} + ${a()}`;
      case 1:
        return `${a()} - ${a()}`;
      case 2:
        return `(${a()}) * (${a()})`;
      case 3:
        return `(${a()}) / (${a()})`;
      case 4:
        return `uint(${this.gen(this.pick<Ty>(['int', 'double']), d)})`;
      default:
        return `(${a()}) % (${a()})`;
    }
  }

  private doubleExpr(d: number): string {
    const a = () => this.gen('double', d);
    switch (Math.floor(this.r() * 6)) {
      case 0:
        return `${a()} + ${a()}`;
      case 1:
        return `${a()} - ${a()}`;
      case 2:
        return `(${a()}) * (${a()})`;
      case 3:
        return `(${a()}) / (${a()})`;
      case 4:
        return `double(${this.gen(this.pick<Ty>(['int', 'uint']), d)})`;
      default:
        return `-(${a()})`;
    }
  }

  private stringExpr(d: number): string {
    const s = () => this.gen('string', d);
    switch (Math.floor(this.r() * 5)) {
      case 0:
        return `${s()} + ${s()}`;
      case 1:
        return `string(${this.gen(this.pick<Ty>(['int', 'uint', 'bool', 'string']), d)})`;
      case 2:
        return `${this.gen('bool', d)} ? ${s()} : ${s()}`;
      case 3:
        return `[${s()}, ${s()}][${this.pick(['0', '1'])}]`;
      default:
        return `string(${this.gen('bytes', d)})`;
    }
  }

  private bytesExpr(d: number): string {
    return this.chance(0.5) ? `${this.gen('bytes', d)} + ${this.gen('bytes', d)}` : `bytes(${this.gen('string', d)})`;
  }

  private boolExpr(d: number): string {
    const cmp = this.pick(['==', '!=', '<', '<=', '>', '>=']);
    switch (Math.floor(this.r() * 14)) {
      case 0:
      case 1: {
        const t = this.pick<Ty>(['int', 'uint', 'double', 'string', 'bytes', 'bool']);
        return `${this.gen(t, d)} ${cmp} ${this.gen(t, d)}`;
      }
      case 2:
        // Heterogeneous numeric comparison (cel-spec: numbers compare across int, uint, double).
        return `${this.gen(this.pick<Ty>(['int', 'uint', 'double']), d)} ${cmp} ${this.gen(this.pick<Ty>(['int', 'uint', 'double']), d)}`;
      case 3:
        return `${this.gen('bool', d)} && ${this.gen('bool', d)}`;
      case 4:
        return `${this.gen('bool', d)} || ${this.gen('bool', d)}`;
      case 5:
        return `!(${this.gen('bool', d)})`;
      case 6:
        return `${this.gen('int', d)} in ${this.gen('list', d)}`;
      case 7:
        return `${this.pick(['"a"', '"k"', '"z"'])} in ${this.gen('map', d)}`;
      case 8:
        return `${this.gen('string', d)}.${this.pick(['contains', 'startsWith', 'endsWith'])}(${this.gen('string', d)})`;
      case 9:
        return `${this.gen('list', d)}.${this.pick(['all', 'exists', 'exists_one'])}(x, x ${cmp} ${this.gen('int', d)})`;
      case 10:
        return `has(${this.gen('map', d)}.${this.pick(['a', 'k', 'z'])})`;
      case 11:
        return `${this.gen('list', d)} == ${this.gen('list', d)}`;
      case 12:
        return `${this.gen('map', d)} == ${this.gen('map', d)}`;
      default:
        return `${this.gen('string', d)}.matches(${this.pick(['"^a"', '"b+"', '"^$"', '"[a-c]{2}"'])})`;
    }
  }

  private listExpr(d: number): string {
    const n = Math.floor(this.r() * 4);
    const elems = () => Array.from({ length: n }, () => this.gen('int', d)).join(', ');
    switch (Math.floor(this.r() * 5)) {
      case 0:
        return `[${elems()}]`;
      case 1:
        return `[${elems()}] + [${this.gen('int', d)}]`;
      case 2:
        return `[${elems()}].map(x, x * ${this.gen('int', d)})`;
      case 3:
        return `[${elems()}].filter(x, x % 2 == 0)`;
      default:
        return `[${elems()}].map(x, x > 1, x - 1)`;
    }
  }

  private mapExpr(d: number): string {
    switch (Math.floor(this.r() * 4)) {
      case 0:
        return `{"a": ${this.gen('int', d)}, "k": ${this.gen('int', d)}}`;
      case 1:
        return `{}`;
      case 2:
        return `{"k": ${this.gen('string', d)}}`;
      default:
        return `{${this.pick(['1', '2u', 'true', '"z"'])}: ${this.gen('int', d)}}`;
    }
  }

  private optionalExpr(d: number): string {
    switch (Math.floor(this.r() * 4)) {
      case 0:
        return `optional.of(${this.gen('int', d)})`;
      case 1:
        return `${this.gen('map', d)}.?${this.pick(['a', 'k'])}`;
      case 2:
        return `[${this.gen('int', d)}][?${this.pick(['0', '1'])}]`;
      default:
        return `optional.none()`;
    }
  }
}

// ------------------------------------------------------------------------------------------ canonical text
/** Result of one library on one expression: a canonical value text, ERROR, or UNSUPPORTED (cannot parse/check it). */
export type Outcome = { kind: 'value'; text: string } | { kind: 'error'; message: string } | { kind: 'unsupported'; message: string };

function num(x: number): string {
  return Object.is(x, -0) ? '-0' : String(x);
}

function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

function mapText(entries: [string, string][]): string {
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `{${entries.map(([k, v]) => `${k}: ${v}`).join(', ')}}`;
}

export function showOurs(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isSafeInteger(v) ? `int ${v}` : `double ${num(v)}`;
  if (typeof v === 'bigint') return `int ${v}`;
  if (typeof v === 'string') return `string ${JSON.stringify(v)}`;
  if (v instanceof CelDouble) return `double ${num(v.v)}`;
  if (v instanceof CelUint) return `uint ${v.v}`;
  if (v instanceof Uint8Array) return `bytes ${hex(v)}`;
  if (Array.isArray(v)) return `[${v.map(showOurs).join(', ')}]`;
  if (v instanceof CelOptional) return v.has ? `optional(${showOurs(v.value)})` : 'optional.none';
  if (v instanceof CelMap) return mapText(Array.from(v.entries.values(), ([k, x]) => [showOurs(k), showOurs(x)]));
  if (isPlainMap(v)) return mapText(Object.keys(v).map((k) => [showOurs(k), showOurs(v[k])]));
  return `?${Object.prototype.toString.call(v)}`;
}

export function showBuf(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'bigint') return `int ${v}`;
  if (typeof v === 'number') return `double ${num(v)}`;
  if (typeof v === 'string') return `string ${JSON.stringify(v)}`;
  if (v instanceof Uint8Array) return `bytes ${hex(v)}`;
  if (buf.isCelUint(v)) return `uint ${v.value}`;
  if (buf.isCelList(v)) return `[${Array.from(v as Iterable<unknown>, showBuf).join(', ')}]`;
  if (buf.isCelMap(v)) return mapText(Array.from(v.entries(), ([k, x]) => [showBuf(k), showBuf(x)]));
  return `?${(v as object).constructor?.name ?? typeof v}`;
}

export function showMarc(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'bigint') return `int ${v}`;
  if (typeof v === 'number') return `double ${num(v)}`;
  if (typeof v === 'string') return `string ${JSON.stringify(v)}`;
  if (v instanceof Uint8Array) return `bytes ${hex(v)}`;
  if (Array.isArray(v)) return `[${v.map(showMarc).join(', ')}]`;
  if (v instanceof marc.Optional) return v.hasValue() ? `optional(${showMarc(v.value())})` : 'optional.none';
  const ctor = (v as object).constructor?.name;
  if (ctor === 'UnsignedInteger' || ctor === 'UnsignedInt') return `uint ${(v as { value: unknown }).value}`;
  // marc returns string-keyed maps as Map or plain objects; keys of other types are not preserved.
  if (v instanceof Map) return mapText(Array.from(v.entries(), ([k, x]) => [showMarc(k), showMarc(x)]));
  if (typeof v === 'object') return mapText(Object.keys(v).map((k) => [showMarc(k), showMarc((v as Record<string, unknown>)[k])]));
  return `?${typeof v}`;
}

const marcEnv = new marc.Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true, homogeneousAggregateLiterals: false });

export function runMarc(expr: string): Outcome {
  let fn: (ctx?: Record<string, unknown>) => unknown;
  try {
    fn = marcEnv.parse(expr) as unknown as typeof fn;
  } catch (e) {
    return { kind: 'unsupported', message: (e as Error).message.split('\n')[0]! };
  }
  try {
    return { kind: 'value', text: showMarc(fn({})) };
  } catch (e) {
    if (e instanceof marc.TypeError || e instanceof marc.ParseError) return { kind: 'unsupported', message: e.message.split('\n')[0]! };
    return { kind: 'error', message: (e as Error).message.split('\n')[0]! };
  }
}

export function runBuf(expr: string): Outcome {
  let r: unknown;
  try {
    r = buf.run(expr);
  } catch (e) {
    return { kind: 'unsupported', message: (e as Error).message };
  }
  if (buf.isCelError(r)) {
    const m = r.message;
    // Parse errors and unknown functions mean buf cannot express the expression at all.
    if (/unbound function|syntax|Syntax|parse|unexpected|Expected/.test(m)) return { kind: 'unsupported', message: m };
    return { kind: 'error', message: m };
  }
  return { kind: 'value', text: showBuf(r) };
}
