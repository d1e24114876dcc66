/**
 * Runs the official cel-spec conformance suite (as shipped in @bufbuild/cel-spec) against our CEL engine.
 *   npm run conformance:cel            per-file table, skips with reasons, failures
 *   npm run conformance:cel -- --json  {"total","passed","failed","skipped","byFile":{...}}
 * Skipped: files of libraries Kubernetes does not enable, tests that need protobuf messages, and
 * checkOnly tests (they assert only the checker's deduced type and carry no evaluation result).
 * typedResult tests with a result are evaluated against it (their deducedType is not compared: the
 * engine has no static type checker beyond MAP's result-type check).
 */
import { tests as suite } from '@bufbuild/cel-spec/testdata/conformance.js';
import { pathToFileURL } from 'node:url';
import { compile } from '../src/cel/index.js';
import {
  CelDouble,
  CelDuration,
  CelMap,
  CelTimestamp,
  CelType,
  CelUint,
  MapBuilder,
  isPlainMap,
  kindOf,
  mapEntries,
  mapGet,
  mapHas,
  mapSize,
  mkDouble,
  normBig,
} from '../src/cel/values.js';
import { parseDuration, parseTimestamp } from '../src/cel/time.js';

export const SKIPPED_FILES: Record<string, string> = {
  math_ext: 'cel-go ext.Math is not in the Kubernetes environment',
  block_ext: 'cel.block is not in the Kubernetes environment',
  bindings_ext: 'cel.bind (ext.Bindings) is not in the Kubernetes environment',
  encoders_ext: 'base64 encoders are not in the Kubernetes environment',
  proto2: 'protobuf messages',
  proto3: 'protobuf messages',
  proto2_ext: 'protobuf extensions',
  wrappers: 'protobuf wrapper messages',
  enums: 'protobuf enums',
};

const PROTO_EXPR = /TestAllTypes|NestedTestAllTypes|NestedMessage|NestedEnum|GlobalEnum|TestRequired|cel\.expr\.|google\.protobuf\.(?!Timestamp\b|Duration\b)|proto[23]\./;
const OK_WKT = new Set(['google.protobuf.Duration', 'google.protobuf.Timestamp']);

interface RawTest {
  name: string;
  expr: string;
  value?: Record<string, unknown>;
  evalError?: unknown;
  anyEvalErrors?: unknown;
  bindings?: Record<string, { value?: Record<string, unknown> }>;
  container?: string;
  disableCheck?: boolean;
  checkOnly?: boolean;
  typedResult?: { result?: Record<string, unknown>; deducedType?: unknown };
  unknown?: unknown;
  anyUnknowns?: unknown;
}

function skipReason(file: string, t: RawTest): string | undefined {
  if (SKIPPED_FILES[file]) return SKIPPED_FILES[file];
  if (t.checkOnly || (t.typedResult && t.typedResult.result === undefined)) return 'checkOnly: asserts only the type checker\'s deduced type, no evaluation result';
  if (t.unknown || t.anyUnknowns) return 'unknown values (partial evaluation)';
  if (PROTO_EXPR.test(t.expr)) return 'protobuf messages';
  const s = JSON.stringify([t.bindings ?? null, t.value ?? t.typedResult?.result ?? null]);
  if (/enumValue/.test(s)) return 'protobuf enums';
  for (const m of s.matchAll(/"@type":"type\.googleapis\.com\/([^"]+)"/g)) if (!OK_WKT.has(m[1]!)) return 'protobuf messages';
  if (t.container && /\./.test(t.container)) return 'protobuf container';
  return undefined;
}

// ------------------------------------------------------------------------------------------ expected values
function dbl(x: unknown): number {
  if (x === 'NaN') return NaN;
  if (x === 'Infinity') return Infinity;
  if (x === '-Infinity') return -Infinity;
  return Number(x ?? 0);
}

export function fromProtoValue(v: Record<string, unknown>): unknown {
  const k = Object.keys(v)[0];
  const x = k === undefined ? undefined : v[k];
  switch (k) {
    case undefined:
    case 'nullValue':
      return null;
    case 'boolValue':
      return x;
    case 'int64Value':
      return normBig(BigInt(x as string));
    case 'uint64Value':
      return new CelUint(BigInt(x as string));
    case 'doubleValue':
      return mkDouble(dbl(x));
    case 'stringValue':
      return x;
    case 'bytesValue':
      return new Uint8Array(Buffer.from(x as string, 'base64'));
    case 'listValue':
      return ((x as { values?: Record<string, unknown>[] }).values ?? []).map(fromProtoValue);
    case 'mapValue': {
      const b = new MapBuilder();
      for (const e of (x as { entries?: { key: Record<string, unknown>; value: Record<string, unknown> }[] }).entries ?? []) b.set(fromProtoValue(e.key), fromProtoValue(e.value));
      return b.build();
    }
    case 'typeValue':
      return new CelType(x as string);
    case 'objectValue': {
      const o = x as Record<string, string>;
      const tn = o['@type']!.split('/').pop();
      if (tn === 'google.protobuf.Duration') return parseDuration(o['value']!);
      if (tn === 'google.protobuf.Timestamp') return parseTimestamp(o['value']!);
      throw new Error(`unsupported object ${tn}`);
    }
    default:
      throw new Error(`unsupported value kind ${k}`);
  }
}

/** Strict equality for the harness: same CEL type, NaN equals NaN, maps unordered. */
export function sameValue(a: unknown, b: unknown): boolean {
  const ka = kindOf(a);
  if (ka !== kindOf(b)) return false;
  switch (ka) {
    case 'int':
      return BigInt(a as number) === BigInt(b as number);
    case 'uint':
      return (a as CelUint).v === (b as CelUint).v;
    case 'double': {
      const x = typeof a === 'number' ? a : (a as CelDouble).v;
      const y = typeof b === 'number' ? b : (b as CelDouble).v;
      return x === y || (Number.isNaN(x) && Number.isNaN(y));
    }
    case 'bytes':
      return Buffer.from(a as Uint8Array).equals(Buffer.from(b as Uint8Array));
    case 'list': {
      const x = a as unknown[];
      const y = b as unknown[];
      return x.length === y.length && x.every((e, i) => sameValue(e, y[i]));
    }
    case 'map': {
      const x = a as Record<string, unknown> | CelMap;
      const y = b as Record<string, unknown> | CelMap;
      if (mapSize(x) !== mapSize(y)) return false;
      return mapEntries(x).every(([k, v]) => mapHas(y, k) && sameValue(v, mapGet(y, k)));
    }
    case 'timestamp':
      return (a as CelTimestamp).ns === (b as CelTimestamp).ns;
    case 'duration':
      return (a as CelDuration).ns === (b as CelDuration).ns;
    case 'type':
      return (a as CelType).name === (b as CelType).name;
    default:
      return a === b;
  }
}

function show(v: unknown): string {
  return JSON.stringify(v, (_k, x) => {
    if (typeof x === 'bigint') return `${x}n`;
    if (x instanceof CelUint) return `${x.v}u`;
    if (x instanceof CelDouble) return `${x.v}.0`;
    if (x instanceof CelMap) return Object.fromEntries(Array.from(x.entries.values(), ([k, y]) => [String(k), y]));
    if (x instanceof CelType) return `type(${x.name})`;
    if (x instanceof CelTimestamp || x instanceof CelDuration) return `${x.constructor.name}(${x.ns}n)`;
    if (typeof x === 'number' && !Number.isSafeInteger(x)) return `${x}d`;
    return x;
  })?.slice(0, 160) ?? 'undefined';
}

// ------------------------------------------------------------------------------------------ runner
export interface FileStats {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
}

export interface ConformanceReport {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  byFile: Record<string, FileStats>;
  skips: Record<string, number>;
  failures: string[];
}

export function runConformance(): ConformanceReport {
  const report: ConformanceReport = { total: 0, passed: 0, failed: 0, skipped: 0, byFile: {}, skips: {}, failures: [] };
  const walk = (s: { name: string; suites?: unknown[]; tests?: { original: RawTest }[] }, path: string[]): void => {
    for (const sub of (s.suites ?? []) as (typeof s)[]) walk(sub, [...path, sub.name]);
    for (const { original: t } of s.tests ?? []) {
      const file = path[0]!;
      const st = (report.byFile[file] ??= { total: 0, passed: 0, failed: 0, skipped: 0 });
      st.total++;
      report.total++;
      const reason = skipReason(file, t);
      if (reason) {
        st.skipped++;
        report.skipped++;
        report.skips[reason] = (report.skips[reason] ?? 0) + 1;
        continue;
      }
      const outcome = runOne(t);
      if (outcome === true) {
        st.passed++;
        report.passed++;
      } else {
        st.failed++;
        report.failed++;
        report.failures.push(`${path.join('/')}/${t.name}: ${t.expr.slice(0, 120)}  ->  ${outcome}`);
      }
    }
  };
  walk(suite as never, []);
  return report;
}

function runOne(t: RawTest): true | string {
  let act: Record<string, unknown> = {};
  try {
    for (const [k, b] of Object.entries(t.bindings ?? {})) act[k] = fromProtoValue(b.value ?? {});
  } catch (e) {
    return `harness: ${(e as Error).message}`;
  }
  // cel-spec tests plain CEL: aggregate literals may mix types there.
  const p = compile(t.expr, { homogeneousAggregateLiterals: false, ...(t.container ? { container: t.container } : {}) });
  const wantsError = t.evalError !== undefined || t.anyEvalErrors !== undefined;
  if (!p.ok) {
    const d = p.diagnostics[0]!;
    if (wantsError && d.code === 'TM5002') return true;
    return `${d.code} ${d.message}`;
  }
  const r = p.value.eval(act, { costLimit: Infinity });
  if (wantsError) return r.ok ? `expected error, got ${show(r.value)}` : true;
  if (!r.ok) return `error: ${r.error}`;
  const want = t.value ?? t.typedResult?.result;
  const expected = want ? fromProtoValue(want) : true;
  return sameValue(r.value, expected) ? true : `got ${show(r.value)}, want ${show(expected)}`;
}

function main(): void {
  const json = process.argv.includes('--json');
  const r = runConformance();
  if (json) {
    const { total, passed, failed, skipped, byFile } = r;
    process.stdout.write(JSON.stringify({ total, passed, failed, skipped, byFile }, null, 2) + '\n');
    return;
  }
  const rows = Object.entries(r.byFile).map(([f, s]) => `| ${f} | ${s.total} | ${s.passed} | ${s.failed} | ${s.skipped} |`);
  const run = r.passed + r.failed;
  console.log(['| file | tests | passed | failed | skipped |', '|---|---|---|---|---|', ...rows].join('\n'));
  console.log(`\ntotal ${r.total}, run ${run}, passed ${r.passed} (${((100 * r.passed) / Math.max(1, run)).toFixed(2)}% of run), failed ${r.failed}, skipped ${r.skipped}`);
  console.log('\nskipped by reason:');
  for (const [reason, n] of Object.entries(r.skips)) console.log(`  ${n}  ${reason}`);
  if (r.failures.length) {
    console.log('\nfailures:');
    for (const f of r.failures) console.log('  ' + f);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
export { isPlainMap };
