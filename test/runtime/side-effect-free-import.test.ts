/**
 * Importing a module changes nothing: no engine, runner or environment is registered at import, so what an
 * evaluation does depends on the runtime it is given and never on which modules were loaded before it.
 * Imports every module under src/ and compares what a fresh default runtime holds, the global object and the
 * dialect list, before and after.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/index.js';
import { dialects } from '../../src/dialects/registry.js';
import { DEFAULT_RUNNERS } from '../../src/conformance/runners.js';
import { REPO_ROOT } from '../support/shared.js';

const SRC = join(REPO_ROOT, 'src');

function modulesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...modulesUnder(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

/** What registration used to go through (issue 12): none of these may be exported by any module again. */
const REMOVED = [
  'registerExpressionEngine',
  'registerMergeEngine',
  'registerTemplateEngine',
  'registerTypedDecoder',
  'expressionEngine',
  'mergeEngine',
  'templateEngine',
  'typedDecoder',
  'registerCelEngine',
  'registerJmesEngine',
  'registerSmpEngine',
  'registerSsaEngine',
  'installMpolCelEngine',
  'declareIdentityExactEngine',
  'withSchemaEnvironment',
  'enterSchemaEnvironment',
  'setRequestExtras',
  'setKyvernoData',
  'registerCaseRunner',
  'registerTableRunner',
];

describe('importing every module under src/', () => {
  it('registers nothing and changes no global state', async () => {
    const runtimeBefore = createRuntime();
    const globalsBefore = Object.getOwnPropertyNames(globalThis).sort();
    const dialectsBefore = dialects().map((d) => d.name);
    const runnersBefore = { ...DEFAULT_RUNNERS };

    const files = modulesUnder(SRC);
    expect(files.length).toBeGreaterThan(100);
    const exported = new Map<string, string[]>();
    for (const file of files) {
      const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      exported.set(relative(REPO_ROOT, file), Object.keys(mod));
    }

    expect(createRuntime()).toEqual(runtimeBefore);
    expect(Object.getOwnPropertyNames(globalThis).sort()).toEqual(globalsBefore);
    expect(dialects().map((d) => d.name)).toEqual(dialectsBefore);
    expect({ ...DEFAULT_RUNNERS }).toEqual(runnersBefore);
    const stillThere = [...exported].flatMap(([file, names]) => names.filter((n) => REMOVED.includes(n)).map((n) => `${file}: ${n}`));
    expect(stillThere).toEqual([]);
  }, 120_000);

  it('the default runtime holds every engine the shipped dialects need', () => {
    const runtime = createRuntime();
    expect(Object.keys(runtime.expressions).sort()).toEqual(['cel-kubernetes', 'cel-kyverno', 'jmespath-kyverno']);
    expect(Object.keys(runtime.templates)).toEqual(['kyverno']);
    expect(Object.keys(runtime.merges).sort()).toEqual(['smp', 'ssa']);
    expect(runtime.typedDecoder).toBeTypeOf('function');
    expect(runtime.schemas.unknownKinds).toBe('error');
    expect(runtime.schemas.kinds.keys()).toEqual([]);
  });
});
