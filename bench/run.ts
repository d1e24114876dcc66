/**
 * `npm run bench [-- --json [FILE]] [-- --filter TEXT]` (runs the compiled code in dist/, as the CLI does): runs
 * every benchmark in one process and prints, for each, the time per object of transmute and of the hand-written
 * baseline doing the same work, and their ratio; then the streaming figure (100,000 Pods end to end, against
 * JSON.parse + JSON.stringify of the same objects) and the wall time of `transmute test` (and `kyverno test` when
 * it is installed) over the Kyverno suites of ../shared. `--json` also writes every figure to FILE (default
 * bench-results.json), so that runs can be compared.
 * Times are medians over several alternating rounds after a warm-up, so both sides see the same JIT and GC state.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import type { Benchmark, BenchmarkCase } from './types.js';

/** Benchmark modules, one line each; a module that is not there yet is skipped with a note. */
const MODULES = ['interpreter', 'cel', 'gatekeeper', 'kyverno', 'map', 'yaml'];

interface Row {
  name: string;
  items: number;
  nsPerItem: number;
  baselineNsPerItem: number;
  ratio: number;
  /**
   * The least and greatest ratio of one round (its transmute time over the baseline time measured right after
   * it): their spread shows how much of the median ratio is the machine's noise.
   */
  roundRatios: { min: number; max: number };
  others: Record<string, { nsPerItem: number; ratioToUs: number }>;
  extra?: Record<string, number | string>;
}

function time(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0);
}

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** The least time every case warms up for before its timed rounds. */
const WARMUP_MS = 250;

function measure(c: BenchmarkCase, rounds: number): Pick<Row, 'nsPerItem' | 'baselineNsPerItem' | 'others' | 'roundRatios'> {
  // Warm-up: let every side reach its optimised code before timing. Three runs of a small case (2,000 CEL
  // evaluations, well under a millisecond) can end before V8's optimising compiler, which works on a
  // background thread, has delivered: the timed rounds then measured unoptimised code in some runs (E1 at
  // 230-360 ns against 41 ns, seen on the 2-core machine). So every case also warms for WARMUP_MS.
  const until = performance.now() + WARMUP_MS;
  for (let w = 0; w < 3 || performance.now() < until; w++) {
    c.run();
    c.baseline();
    for (const f of Object.values(c.others ?? {})) f();
  }
  const ours: number[] = [];
  const base: number[] = [];
  const others: Record<string, number[]> = {};
  // No forced GC between rounds: a full GC throws away optimised code that depends on weak maps, which a
  // steady workload never sees; the GC work the benchmarks cause is measured as part of their time.
  for (let r = 0; r < rounds; r++) {
    ours.push(time(() => c.run()));
    base.push(time(() => c.baseline()));
    for (const [name, f] of Object.entries(c.others ?? {})) {
      (others[name] ??= []).push(time(f));
    }
  }
  const nsPerItem = median(ours) / c.items;
  const perRound = ours.map((t, r) => t / base[r]!);
  return {
    nsPerItem,
    roundRatios: { min: Math.min(...perRound), max: Math.max(...perRound) },
    baselineNsPerItem: median(base) / c.items,
    others: Object.fromEntries(
      Object.entries(others).map(([n, xs]) => {
        const ns = median(xs) / c.items;
        return [n, { nsPerItem: ns, ratioToUs: ns / nsPerItem }];
      }),
    ),
  };
}

function fmt(ns: number): string {
  return ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(2)} µs` : `${ns.toFixed(0)} ns`;
}

interface StreamFigure {
  reader: string;
  pods: number;
  seconds: number;
  maxRssMiB: number;
  jsonSeconds: number;
  ratioToJson: number;
}

/** Streaming 100,000 Pods end to end, measured in a child process so its peak memory is its own. */
function streamMemory(here: string): StreamFigure {
  const compiled = join(here, 'stream-memory.js');
  const args = existsSync(compiled) ? [compiled] : ['--import', 'tsx', join(here, 'stream-memory.ts')];
  const out = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as StreamFigure;
}

interface SuiteFigure {
  command: string;
  seconds: number;
  exitCode: number;
}

/** The repository root: the nearest folder above `here` with a package.json. */
function repoRoot(here: string): string {
  let dir = here;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function timed(command: string, file: string, args: string[]): SuiteFigure {
  const t0 = process.hrtime.bigint();
  let exitCode = 0;
  try {
    execFileSync(file, args, { stdio: 'ignore', maxBuffer: 1 << 26 });
  } catch (e) {
    exitCode = (e as { status?: number }).status ?? -1;
  }
  return { command, seconds: Number(process.hrtime.bigint() - t0) / 1e9, exitCode };
}

/**
 * Wall time of a whole `transmute test` run over the Kyverno suites of ../shared, and of `kyverno test` over
 * the same folder when the Kyverno CLI is installed (KYVERNO_BIN, or `kyverno` on PATH).
 */
function suiteTimes(here: string, notes: string[]): SuiteFigure[] {
  const root = repoRoot(here);
  const suites = resolve(process.env.TRANSMUTE_SHARED ?? join(root, '..', 'shared'), 'conformance', 'kyverno', 'suites');
  if (!existsSync(suites)) {
    notes.push(`suite timing: ${suites} is absent, skipped`);
    return [];
  }
  const compiled = join(here, '..', 'src', 'cli', 'main.js');
  const entry = existsSync(compiled) ? compiled : join(root, 'src', 'cli', 'main.ts');
  const script = `const { main } = await import(${JSON.stringify(pathToFileURL(entry).href)}); process.exitCode = await main(process.argv.slice(1));`;
  const nodeArgs = existsSync(compiled) ? [] : ['--import', 'tsx'];
  const figures = [timed(`transmute test ${suites}`, process.execPath, [...nodeArgs, '--input-type=module', '-e', script, 'test', suites])];
  const kyverno = process.env.KYVERNO_BIN ?? 'kyverno';
  try {
    execFileSync(kyverno, ['version'], { stdio: 'ignore' });
    figures.push(timed(`kyverno test ${suites}`, kyverno, ['test', suites]));
  } catch {
    notes.push('suite timing: the kyverno CLI is not installed (set KYVERNO_BIN), its run is skipped');
  }
  return figures;
}

/** `--json` with or without a file name. */
function jsonTarget(argv: string[]): string | undefined {
  const i = argv.indexOf('--json');
  if (i < 0) return undefined;
  const next = argv[i + 1];
  return next !== undefined && !next.startsWith('--') ? next : 'bench-results.json';
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const json = jsonTarget(argv);
  const fi = argv.indexOf('--filter');
  const filter = fi >= 0 ? argv[fi + 1] : undefined;
  const here = dirname(fileURLToPath(import.meta.url));
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const m of MODULES) {
    const file = ['.ts', '.js'].map((ext) => join(here, m + ext)).find(existsSync);
    if (!file) {
      notes.push(`bench/${m}: not present, skipped`);
      continue;
    }
    const mod = (await import(pathToFileURL(file).href)) as { benchmarks: Benchmark[] };
    for (const b of mod.benchmarks) {
      if (filter && !b.name.includes(filter)) continue;
      const c = await b.setup();
      c.verify?.();
      const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
      const m2 = measure(c, rounds);
      const row: Row = { name: b.name, items: c.items, ...m2, ratio: m2.nsPerItem / m2.baselineNsPerItem };
      const extra = (c as BenchmarkCase & { extra?: () => Record<string, number | string> }).extra?.();
      if (extra) row.extra = extra;
      rows.push(row);
      const others = Object.entries(row.others)
        .map(([n, o]) => `  ${n}: ${fmt(o.nsPerItem)}/item (${o.ratioToUs.toFixed(2)}x ours; ours ${(1 / o.ratioToUs).toFixed(2)}x it)`)
        .join('');
      const ex = row.extra ? '  ' + Object.entries(row.extra).map(([k, v]) => `${k}=${v}`).join(' ') : '';
      console.log(`${row.name}\n  transmute ${fmt(row.nsPerItem)}/item  hand-written ${fmt(row.baselineNsPerItem)}/item  ratio ${row.ratio.toFixed(2)}x (rounds ${row.roundRatios.min.toFixed(2)}-${row.roundRatios.max.toFixed(2)}x)${others}${ex}`);
    }
  }
  const stream = filter && !'stream'.includes(filter) ? undefined : streamMemory(here);
  if (stream) {
    console.log(
      `stream: ${stream.pods} Pods from one file, read + 20-op policy + YAML out, in ${stream.seconds.toFixed(1)} s; ` +
        `JSON.parse + JSON.stringify of the same objects ${stream.jsonSeconds.toFixed(2)} s; ratio ${stream.ratioToJson.toFixed(2)}x (limit 10x); ` +
        `peak RSS ${stream.maxRssMiB} MiB (limit 1024 MiB)`,
    );
  }
  const suites = filter && !'suites'.includes(filter) ? [] : suiteTimes(here, notes);
  for (const s of suites) console.log(`suite: ${s.command}: ${s.seconds.toFixed(1)} s (exit ${s.exitCode})`);
  for (const n of notes) console.log(`note: ${n}`);
  if (json) {
    const machine = { node: process.version, cpus: cpus().length, parallelism: availableParallelism(), platform: `${process.platform}-${process.arch}` };
    const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
    writeFileSync(json, `${JSON.stringify({ date: new Date().toISOString(), machine, rounds, benchmarks: rows, stream, suites, notes }, null, 2)}\n`);
    console.log(`figures written to ${json}`);
  }
}

await main();
