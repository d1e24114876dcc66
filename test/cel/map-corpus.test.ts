import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { compile, MAP_VARIABLES, type ResultExpectation } from '../../src/cel/index.js';
import { describeShared, sharedPath } from '../support/shared.js';

interface Found {
  expression: string;
  expect: ResultExpectation;
  where: string;
}

function expressionsOf(doc: unknown): Found[] {
  const out: Found[] = [];
  const spec = (doc as { spec?: Record<string, unknown> } | null)?.spec;
  if (!spec) return out;
  const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? (v as Record<string, unknown>[]) : []);
  for (const m of list(spec['mutations'])) {
    const ac = m['applyConfiguration'] as { expression?: string } | undefined;
    const jp = m['jsonPatch'] as { expression?: string } | undefined;
    if (ac?.expression) out.push({ expression: ac.expression, expect: 'Object', where: 'applyConfiguration' });
    if (jp?.expression) out.push({ expression: jp.expression, expect: 'JSONPatchList', where: 'jsonPatch' });
  }
  for (const c of list(spec['matchConditions'])) if (typeof c['expression'] === 'string') out.push({ expression: c['expression'], expect: 'bool', where: 'matchCondition' });
  for (const v of list(spec['variables'])) if (typeof v['expression'] === 'string') out.push({ expression: v['expression'], expect: 'any', where: 'variable' });
  return out;
}

function policyFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...policyFiles(p));
    else if (name === 'policy.yaml' || name === 'policies.yaml') out.push(p);
  }
  return out;
}

describeShared('every MAP expression in the conformance corpus parses and compiles', () => {
  const root = sharedPath('conformance', 'map');
  const files = existsSync(root) ? policyFiles(root) : [];

  it('finds the corpus', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  for (const file of files) {
    const rel = file.slice(root.length + 1);
    it(rel, () => {
      const manifestPath = join(file, '..', 'manifest.json');
      const manifest = existsSync(manifestPath) ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as { expect?: { errorStage?: string; errorContains?: string } }) : {};
      const found = parseAllDocuments(readFileSync(file, 'utf8')).flatMap((d) => expressionsOf(d.toJSON()));
      expect(found.length).toBeGreaterThan(0);
      const failures: string[] = [];
      for (const f of found) {
        const r = compile(f.expression, { variables: MAP_VARIABLES, expect: f.expect });
        if (!r.ok) failures.push(r.diagnostics[0]!.message);
      }
      if (manifest.expect?.errorStage === 'compile') {
        expect(failures.some((m) => m.includes(manifest.expect!.errorContains!))).toBe(true);
      } else {
        expect(failures).toEqual([]);
      }
    });
  }
});
