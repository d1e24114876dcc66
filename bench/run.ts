/**
 * `npm run bench [-- --json] [-- --filter TEXT]` (runs the compiled code in dist/, as the CLI does): runs every benchmark in one process and prints, for each, the
 * time per object of transmute and of the hand-written baseline doing the same work, and their ratio.
 * Times are medians over several alternating rounds after a warm-up, so both sides see the same JIT and GC state.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import type { Benchmark, BenchmarkCase } from './types.js';

/** Benchmark modules, one line each; a module that is not there yet is skipped with a note. */
const MODULES = ['interpreter', 'cel', 'gatekeeper', 'kyverno', 'map'];

interface Row {
  name: string;
  items: number;
  nsPerItem: number;
  baselineNsPerItem: number;
  ratio: number;
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

function measure(c: BenchmarkCase, rounds: number): Pick<Row, 'nsPerItem' | 'baselineNsPerItem' | 'others'> {
  // Warm-up: let every side reach its optimised code before timing.
  for (let w = 0; w < 3; w++) {
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
  return {
    nsPerItem,
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

/** Peak memory of streaming 100,000 Pods through the interpreter, measured in a child process. */
function streamMemory(here: string): { pods: number; seconds: number; maxRssMiB: number } {
  const compiled = join(here, 'stream-memory.js');
  const args = existsSync(compiled) ? [compiled] : ['--import', 'tsx', join(here, 'stream-memory.ts')];
  const out = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const json = argv.includes('--json');
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
      if (!json) {
        const others = Object.entries(row.others)
          .map(([n, o]) => `  ${n}: ${fmt(o.nsPerItem)}/item (${o.ratioToUs.toFixed(2)}x ours)`)
          .join('');
        const ex = row.extra ? '  ' + Object.entries(row.extra).map(([k, v]) => `${k}=${v}`).join(' ') : '';
        console.log(`${row.name}\n  transmute ${fmt(row.nsPerItem)}/item  hand-written ${fmt(row.baselineNsPerItem)}/item  ratio ${row.ratio.toFixed(2)}x${others}${ex}`);
      }
    }
  }
  const stream = filter && !'stream'.includes(filter) ? undefined : streamMemory(here);
  if (json) console.log(JSON.stringify({ benchmarks: rows, stream, notes }, null, 2));
  else {
    if (stream) console.log(`stream: ${stream.pods} Pods from one file in ${stream.seconds.toFixed(1)} s, peak RSS ${stream.maxRssMiB} MiB (limit 1024 MiB)`);
    for (const n of notes) console.log(`note: ${n}`);
  }
}

await main();
