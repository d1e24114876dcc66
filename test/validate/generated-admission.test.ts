/**
 * What transmute writes, a cluster admits: every document of every golden case's emitted translations passes
 * the same admission as `--validate strict` (strict decoding, the CRD schema, the engine's webhook checks).
 * (`translate`, `migrate` and `conformance --via` admit their output themselves: a refusal is TM4006 there.)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { renderDiagnosticLine } from '../../src/diagnostics/render.js';
import { dialectFor } from '../../src/dialects/registry.js';
import { loadYamlText } from '../../src/io/yaml-load.js';
import { admitDocs } from '../../src/validate/admit.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'golden', 'cases');

function emitted(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...emitted(p));
    else if (/\.ya?ml$/.test(name)) out.push(p);
  }
  return out;
}

it('admits every document the golden cases emit', () => {
  const files = readdirSync(ROOT).flatMap((c) => {
    const emit = join(ROOT, c, 'emit');
    try {
      return statSync(emit).isDirectory() ? emitted(emit) : [];
    } catch {
      return [];
    }
  });
  let documents = 0;
  const refused: string[] = [];
  for (const file of files) {
    const loaded = loadYamlText(relative(process.cwd(), file), readFileSync(file, 'utf8'));
    expect(loaded.ok, file).toBe(true);
    if (!loaded.ok) continue;
    for (const doc of loaded.value) {
      const dialect = dialectFor(doc);
      if (!dialect) continue;
      documents++;
      for (const d of admitDocs(dialect, [doc]).diagnostics) if (d.severity === 'error') refused.push(renderDiagnosticLine(d));
    }
  }
  console.log(`[generated-admission] ${documents} documents in ${files.length} emitted golden files admitted`);
  expect(refused).toEqual([]);
  expect(documents).toBeGreaterThan(500);
});
