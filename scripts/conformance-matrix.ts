/**
 * The translation matrix: every upstream corpus case, grouped by the dialect its policies are written in,
 * run directly and through each target dialect (`conformance --via`), with the outcome per case:
 * passed, cannot / yet (a refused translation, by class), other (unsupported for a reason that is not a
 * translation: cluster data, a mode transmute does not simulate), failed (failed or error), skipped.
 *
 *   npm run matrix [-- --markdown] [-- --shared ../shared]
 *
 * Cases with no policy (structured-merge triplets) are left out. Gatekeeper cases are counted as they
 * appear in the corpus and separately for those with an expected object (the figure the issues quote).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
// The corpus plug-ins `transmute conformance` registers (external-data stubs, unit tables, Kyverno runners).
import '../src/conformance/plugins/gatekeeper.js';
import '../src/conformance/plugins/kyverno.js';
import '../src/conformance/plugins/map.js';
import { runConformance } from '../src/conformance/run.js';
import type { CaseOutcome } from '../src/conformance/types.js';

const args = process.argv.slice(2);
const markdown = args.includes('--markdown');
const sharedAt = args.indexOf('--shared');
const SHARED = resolve(sharedAt >= 0 ? args[sharedAt + 1]! : join(import.meta.dirname, '..', '..', 'shared'));
const TARGETS = ['(direct)', 'kyverno', 'gatekeeper', 'map', 'kyverno-mpol'] as const;

interface Corpus {
  name: string;
  dirs: string[];
  /** The source dialect of a case, or undefined to leave it out. */
  dialectOf(id: string): string | undefined;
}

function manifest(id: string): Record<string, unknown> | undefined {
  let dir = id.split('#')[0]!;
  for (let i = 0; i < 3 && dir.length > 1; i++) {
    const f = join(dir, 'manifest.json');
    if (existsSync(f)) return JSON.parse(readFileSync(f, 'utf8')) as Record<string, unknown>;
    dir = dirname(dir);
  }
  return undefined;
}

const KYVERNO_DIALECTS: Record<string, string> = { kyverno: 'kyverno', 'kyverno-mutatingpolicy-cel': 'kyverno-mpol', mutatingadmissionpolicy: 'map' };

function kyvernoDialect(id: string): string | undefined {
  const m = manifest(id);
  if (!m) return id.includes('/suites/') ? 'kyverno' : undefined;
  const single = typeof m.dialect === 'string' ? m.dialect : undefined;
  const many = Array.isArray(m.dialects) ? (m.dialects as string[]) : undefined;
  const d = single ?? (many && new Set(many).size === 1 ? many[0] : many ? 'mixed' : undefined);
  const name = d === undefined ? undefined : (KYVERNO_DIALECTS[d] ?? d);
  return name === undefined ? undefined : m.mode === 'mutate-existing' ? `${name} (mutate existing)` : name;
}

const CORPORA: Corpus[] = [
  { name: 'gatekeeper', dirs: [join(SHARED, 'conformance', 'gatekeeper')], dialectOf: (id) => (existsSync(join(id, 'expected.yaml')) ? 'gatekeeper (expected object)' : 'gatekeeper (other)') },
  { name: 'map', dirs: [join(SHARED, 'conformance', 'map')], dialectOf: (id) => (id.includes('smd-merge') ? undefined : 'map') },
  { name: 'kyverno-cli', dirs: [join(SHARED, 'conformance', 'kyverno', 'kyverno-cli')], dialectOf: kyvernoDialect },
  { name: 'kyverno-chainsaw', dirs: [join(SHARED, 'conformance', 'kyverno', 'kyverno-chainsaw')], dialectOf: (id) => chainsawDialect(id) },
  { name: 'kyverno-unit', dirs: [join(SHARED, 'conformance', 'kyverno', 'kyverno-unit')], dialectOf: kyvernoDialect },
  { name: 'kyverno-suites', dirs: [join(SHARED, 'conformance', 'kyverno', 'suites')], dialectOf: () => 'kyverno suites' },
];

function chainsawDialect(id: string): string | undefined {
  const m = manifest(id);
  const d = kyvernoDialect(id);
  if (!m || !d) return d;
  const features = Array.isArray(m.features) ? (m.features as string[]) : [];
  return features.includes('mutateExisting') || features.includes('mpol:mutateExisting') ? `${d} (mutate existing)` : d;
}

type Cell = { passed: number; cannot: number; yet: number; other: number; failed: number; skipped: number };

function tally(outcomes: readonly CaseOutcome[], dialectOf: (id: string) => string | undefined): Map<string, Cell> {
  const out = new Map<string, Cell>();
  for (const o of outcomes) {
    const d = dialectOf(o.id);
    if (d === undefined) continue;
    const c = out.get(d) ?? out.set(d, { passed: 0, cannot: 0, yet: 0, other: 0, failed: 0, skipped: 0 }).get(d)!;
    if (o.status === 'passed') c.passed++;
    else if (o.status === 'skipped') c.skipped++;
    else if (o.status === 'failed' || o.status === 'error') c.failed++;
    else if (o.class) c[o.class]++;
    else c.other++;
  }
  return out;
}

function cellText(c: Cell | undefined): string {
  if (!c) return '';
  const total = c.passed + c.cannot + c.yet + c.other + c.failed;
  return `${c.passed}/${total} p · ${c.cannot} c · ${c.yet} y · ${c.other} o · ${c.failed} f`;
}

async function main(): Promise<void> {
  if (!existsSync(SHARED)) {
    process.stderr.write(`no shared corpus at ${SHARED} (--shared DIR)\n`);
    process.exit(2);
  }
  const rows: string[][] = [];
  for (const corpus of CORPORA) {
    const byTarget = new Map<string, Map<string, Cell>>();
    for (const t of TARGETS) {
      const run = await runConformance(corpus.dirs, t === '(direct)' ? {} : { via: t });
      byTarget.set(t, tally(run.outcomes, corpus.dialectOf));
    }
    const dialects = [...new Set([...byTarget.values()].flatMap((m) => [...m.keys()]))].sort();
    for (const d of dialects) rows.push([corpus.name, d, ...TARGETS.map((t) => cellText(byTarget.get(t)!.get(d)))]);
  }
  const header = ['corpus', 'source', ...TARGETS.map((t) => (t === '(direct)' ? 'direct' : `via ${t}`))];
  if (markdown) {
    process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
    for (const r of rows) process.stdout.write(`| ${r.join(' | ')} |\n`);
  } else {
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (r: string[]) => r.map((x, i) => x.padEnd(widths[i]!)).join('  ').trimEnd();
    process.stdout.write(`${line(header)}\n${rows.map(line).join('\n')}\n`);
  }
  process.stdout.write('\np passed (of the cases not skipped), c cannot, y yet (refused translations by class), o other unsupported, f failed or error\n');
}

await main();
