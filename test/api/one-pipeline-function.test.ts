/**
 * `transmute translate`, `transmute conformance --via` and the library's `translate` run the same pipeline
 * function, pipeline.ts `translateDocumentParts` (issue 12). Proven two ways:
 *  - structurally: `expansionRefusals`, one of its steps, is called from nowhere else in src/, and only inside
 *    `translateDocumentParts`; `translateDocuments` (what the CLI and the library call) is that function's
 *    `.result`; conformance's `preparePolicies` calls it directly;
 *  - by spying on that step: each of the three entries reaches it once per translation, with the same
 *    documents and target, and their outputs are the same text.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SourceDoc } from '../../src/io/source.js';
import { REPO_ROOT } from '../support/shared.js';

const calls = vi.hoisted(() => ({ refusals: [] as { docs: string[]; to: string }[] }));
vi.mock('../../src/dialects/gatekeeper/expansion/translate.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../src/dialects/gatekeeper/expansion/translate.js')>();
  return {
    ...mod,
    expansionRefusals: (docs: readonly SourceDoc[], to: string, ...rest: unknown[]) => {
      calls.refusals.push({ docs: docs.map((d) => JSON.stringify(d.value)), to });
      return (mod.expansionRefusals as (...a: unknown[]) => ReturnType<typeof mod.expansionRefusals>)(docs, to, ...rest);
    },
  };
});

const { runTranslate } = await import('../../src/cli/commands/translate.js');
const { preparePolicies } = await import('../../src/conformance/policies.js');
const api = await import('../../src/index.js');

const MUTATORS = readFileSync(join(REPO_ROOT, 'examples', 'gatekeeper', 'mutators.yaml'), 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** The body of the exported function `name` in `text` (from its declaration to the next top-level `}`). */
function functionBody(text: string, name: string): string {
  const start = text.indexOf(`export function ${name}(`);
  expect(start, name).toBeGreaterThanOrEqual(0);
  return text.slice(start, text.indexOf('\n}\n', start) + 2);
}

describe('one translation pipeline', () => {
  beforeEach(() => {
    calls.refusals = [];
  });

  it('structurally: every translation path goes through translateDocumentParts', () => {
    const users = sourceFiles(join(REPO_ROOT, 'src'))
      .filter((f) => /\bexpansionRefusals\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(REPO_ROOT, f));
    expect(users.sort()).toEqual(['src/dialects/gatekeeper/expansion/translate.ts', 'src/pipeline.ts']);
    const pipeline = readFileSync(join(REPO_ROOT, 'src', 'pipeline.ts'), 'utf8');
    expect(functionBody(pipeline, 'translateDocumentParts')).toContain('expansionRefusals(');
    expect(pipeline.match(/expansionRefusals\(/g)).toHaveLength(1);
    expect(functionBody(pipeline, 'translateDocuments')).toMatch(/return translateDocumentParts\([^)]*\)\.result;/);
    const conformance = readFileSync(join(REPO_ROOT, 'src', 'conformance', 'policies.ts'), 'utf8');
    expect(functionBody(conformance, 'preparePolicies')).toContain('translateDocumentParts(');
    expect(readFileSync(join(REPO_ROOT, 'src', 'cli', 'commands', 'translate.ts'), 'utf8')).toMatch(/\btranslateDocuments\(/);
    expect(readFileSync(join(REPO_ROOT, 'src', 'api', 'translate.ts'), 'utf8')).toMatch(/\btranslateDocuments\(/);
  });

  for (const to of ['kyverno', 'map']) {
    it(`translate, conformance --via and the library reach it once each, alike (to ${to})`, async () => {
      let stdout = '';
      const io = { stdout: (t: string) => void (stdout += t), stderr: () => undefined, stdin: () => MUTATORS, isTTY: false };
      expect(await runTranslate(['-p', '-', '--to', to], io)).toBe(0);
      expect(calls.refusals).toHaveLength(1);
      const cli = calls.refusals[0]!;

      const docs = api.loadDocuments({ name: 'mutators.yaml', text: MUTATORS }).documents;
      const prepared = preparePolicies({ id: 'example', dialect: 'gatekeeper', policyDocs: docs, siblingDocs: [] }, to);
      expect(prepared.kind).toBe('ready');
      expect(calls.refusals).toHaveLength(2);

      const library = api.translate(api.loadPolicies({ name: 'mutators.yaml', text: MUTATORS }), { to });
      expect(calls.refusals).toHaveLength(3);

      expect(calls.refusals.map((c) => c.to)).toEqual([to, to, to]);
      expect(calls.refusals[1]!.docs).toEqual(cli.docs);
      expect(calls.refusals[2]!.docs).toEqual(cli.docs);
      expect(prepared.kind === 'ready' ? prepared.text : undefined).toBe(stdout);
      expect(library.text).toBe(stdout);
    });
  }
});
