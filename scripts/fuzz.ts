/**
 * `npm run fuzz [-- --runs N] [--apply-runs N] [--seed S] [--only NAME]`: the fuzz properties of
 * test/fuzz/properties.ts and the differential properties `cel-diff` and `jmespath-diff`
 * (test/fuzz/differential.ts) with a large budget (1,000,000 inputs each by default), seeded from the golden
 * cases, the examples and, when present, ../shared/conformance. Prints inputs tried and failures per parser;
 * exits 1 on any failure, with fast-check's shrunk counterexample (make it a regression test).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { applyEndsWell, PARSERS, POD, seedTexts, textFrom } from '../test/fuzz/properties.js';
import { DIFFERENTIALS } from '../test/fuzz/differential-properties.js';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const runs = Number(flag('runs') ?? 1_000_000);
const applyRuns = Number(flag('apply-runs') ?? 20_000);
const seed = Number(flag('seed') ?? Date.now() % 2 ** 31);
const only = flag('only');

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const texts = seedTexts([join(repo, 'golden', 'cases'), join(repo, 'examples'), join(repo, '..', 'shared', 'conformance')], 3000);
console.log(`fuzz: seed ${seed}, ${texts.length} seed texts, ${runs} inputs per parser, ${applyRuns} for apply`);

let failed = 0;
for (const [name, p] of Object.entries(PARSERS)) {
  if (only && only !== name) continue;
  const started = Date.now();
  const r = fc.check(fc.property(textFrom(p.seeds(texts)), p.check), { seed, numRuns: runs });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (r.failed) {
    failed++;
    console.log(`${name}: FAILED after ${r.numRuns} inputs (${secs} s): ${JSON.stringify(r.counterexample)} ${String(r.errorInstance ?? '')}`);
  } else console.log(`${name}: ${r.numRuns} inputs, 0 failures (${secs} s)`);
}
// Differential properties (transmute's CEL and JMESPath engines against an independent oracle).
for (const [name, property] of Object.entries(DIFFERENTIALS)) {
  if (only && only !== name) continue;
  const started = Date.now();
  const r = fc.check(property(), { seed, numRuns: runs });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (r.failed) {
    failed++;
    console.log(`${name}: FAILED after ${r.numRuns} inputs (${secs} s): ${JSON.stringify(r.counterexample, bigints)} ${String(r.errorInstance ?? '')}`);
  } else console.log(`${name}: ${r.numRuns} inputs, 0 differences (${secs} s)`);
}
if (!only || only === 'apply') {
  const dir = mkdtempSync(join(tmpdir(), 'transmute-fuzz-'));
  try {
    const pod = join(dir, 'pod.yaml');
    writeFileSync(pod, POD);
    const started = Date.now();
    const r = await fc.check(fc.asyncProperty(textFrom(texts), (policy) => applyEndsWell(policy, pod)), { seed, numRuns: applyRuns });
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    if (r.failed) {
      failed++;
      console.log(`apply: FAILED after ${r.numRuns} inputs (${secs} s): ${JSON.stringify(r.counterexample)}`);
    } else console.log(`apply: ${r.numRuns} inputs, 0 failures (${secs} s)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
process.exitCode = failed > 0 ? 1 : 0;

function bigints(_key: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? `bytes[${Array.from(v).join(',')}]` : v;
}
