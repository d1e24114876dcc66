/**
 * `npm run translation-diff -- DIR... [--source kyverno|gatekeeper|map] [--to T1,T2] [--per N] [--seed S]
 * [--operation CREATE|UPDATE] [--pool FILE]`: each mutating policy under DIR admitted next to its translation,
 * on the objects beside it and seeded variations of them (test/fuzz/translation-diff.ts). Prints every
 * difference, those the translation states (its CEL fails with a `transmute:` reason) apart; exits 1 on any
 * other difference, and on a run that compared nothing.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { loadYamlText } from '../src/io/yaml-load.js';
import { isJsonObject, type JsonObject } from '../src/ir/json.js';
import type { Operation } from '../src/k8s/request.js';
import { translationDiff, type SourceDialect } from '../test/fuzz/translation-diff.js';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const valued = new Set(['--source', '--to', '--per', '--seed', '--operation', '--pool']);
const dirs = args.filter((a, i) => !a.startsWith('--') && !valued.has(args[i - 1] ?? ''));
const source = (flag('source') ?? 'kyverno') as SourceDialect;
const DEFAULT_TARGETS: Record<SourceDialect, string> = { kyverno: 'kyverno-mpol,map', gatekeeper: 'map,kyverno-mpol,kyverno', map: 'kyverno-mpol,kyverno,gatekeeper' };
const poolFile = flag('pool');
const pool = poolFile ? (loadYamlText(poolFile, readFileSync(poolFile, 'utf8')) as { ok: boolean; value: { value: unknown }[] }) : undefined;
if (dirs.length === 0 || !['kyverno', 'gatekeeper', 'map'].includes(source)) {
  console.error('usage: npm run translation-diff -- DIR... [--source kyverno|gatekeeper|map] [--to T1,T2] [--per N] [--seed S] [--operation CREATE|UPDATE] [--pool FILE]');
  process.exit(2);
}
const notDirs = dirs.filter((d) => !existsSync(d) || !statSync(d).isDirectory());
if (notDirs.length > 0) {
  console.error(`translation-diff: not a directory: ${notDirs.join(', ')}`);
  process.exit(2);
}
const report = translationDiff({
  dirs,
  source,
  targets: (flag('to') ?? DEFAULT_TARGETS[source]).split(','),
  perObject: Number(flag('per') ?? 6),
  seed: Number(flag('seed') ?? 0),
  operation: (flag('operation') ?? 'CREATE') as Operation,
  pool: pool?.ok ? pool.value.map((d) => d.value).filter((v): v is JsonObject => isJsonObject(v)) : [],
});
const unstated = report.differences.filter((d) => !d.stated);
for (const d of report.differences) {
  console.log(`${d.stated ? 'stated' : 'DIFFERS'} ${d.target} ${d.unit}: ${d.what}`);
  if (!d.stated) console.log(`  object ${JSON.stringify(d.object)}`);
}
console.log(`${report.units} translations, ${report.compared} objects compared (${report.undecodable} variations kube-apiserver would not decode left out): ${unstated.length} differences, ${report.differences.length - unstated.length} where the translation states its limit`);
process.exit(report.compared === 0 || unstated.length > 0 ? 1 : 0);
