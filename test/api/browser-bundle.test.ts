/**
 * The core bundles for a browser (issue 12): esbuild bundles the public entry (src/index.ts) with
 * `--platform=browser`, which fails on any Node built-in it reaches; the bundle names no Node global either.
 * The test then imports that bundle and runs its `apply` and `translate` on the bundled Gatekeeper example.
 */
import { build, type Metafile } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/shared.js';

type Api = typeof import('../../src/index.js');

const work = mkdtempSync(join(tmpdir(), 'transmute-browser-'));
const bundle = join(work, 'transmute.mjs');
afterAll(() => rmSync(work, { recursive: true, force: true }));

let metafile: Metafile;
let api: Api;

describe('the public entry bundled for the browser', () => {
  beforeAll(async () => {
    const result = await build({
      absWorkingDir: REPO_ROOT,
      entryPoints: ['src/index.ts'],
      outfile: bundle,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      metafile: true,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    metafile = result.metafile;
    api = (await import(pathToFileURL(bundle).href)) as Api;
  }, 120_000);

  it('reaches no Node built-in and no Node global', () => {
    const imports = Object.values(metafile.inputs).flatMap((i) => i.imports.map((x) => x.path));
    expect(imports.filter((p) => p.startsWith('node:') || /^(fs|path|os|crypto|zlib|net|buffer|child_process|url|module)$/.test(p))).toEqual([]);
    const ours = Object.keys(metafile.inputs).filter((p) => p.startsWith('src/'));
    expect(ours).not.toContain('src/io/inputs.ts');
    expect(ours.filter((p) => p.startsWith('src/cli/'))).toEqual([]);
    const text = readFileSync(bundle, 'utf8');
    expect(text.match(/\bBuffer\.(from|byteLength|compare|alloc\w*|concat)\b/g) ?? []).toEqual([]);
    expect(text.match(/\bprocess\.(env|cwd|argv|pid|exit|stdout|stderr)\b/g) ?? []).toEqual([]);
  });

  it("runs the bundle's apply and translate on the Gatekeeper example", () => {
    const mutators = readFileSync(join(REPO_ROOT, 'examples', 'gatekeeper', 'mutators.yaml'), 'utf8');
    const pod = readFileSync(join(REPO_ROOT, 'examples', 'resources', 'pod.yaml'), 'utf8');
    const loaded = api.loadPolicies({ name: 'mutators.yaml', text: mutators });
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(loaded.policies.length).toBeGreaterThan(0);
    const object = api.loadDocuments(pod).documents[0]!.value;
    const runtime = api.createRuntime();
    const applied = api.apply(loaded.policies, { object, operation: 'CREATE', namespace: 'prod' }, { runtime });
    expect(applied.allowed).toBe(true);
    expect(applied.patch.length).toBeGreaterThan(0);

    for (const to of ['kyverno', 'map']) {
      const translated = api.translate(loaded, { to });
      expect(translated.diagnostics.filter((d) => d.severity === 'error'), to).toEqual([]);
      const again = api.loadPolicies({ name: `as-${to}.yaml`, text: translated.text });
      expect(again.ok, to).toBe(true);
      const reapplied = api.apply(again.policies, { object, operation: 'CREATE', namespace: 'prod' }, { runtime });
      expect(reapplied.object, to).toEqual(applied.object);
    }
  });
});
