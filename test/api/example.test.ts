/**
 * The library as a program gets it (issue 12): the package is built into a temporary node_modules folder
 * (scripts/build-lib.mjs: the bundles and their .d.ts), examples/api/gatekeeper-to-kyverno.ts, which imports
 * `transmute-policies` and nothing else of transmute, type-checks against the built declarations through the
 * package's `exports`, then runs: a Gatekeeper mutator loaded from a string, applied, translated to Kyverno,
 * and the translation applied with the same result.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/shared.js';

const EXAMPLE = 'gatekeeper-to-kyverno.ts';
const work = mkdtempSync(join(tmpdir(), 'transmute-api-'));
const pkg = join(work, 'node_modules', 'transmute-policies');
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(args: string[], cwd = REPO_ROOT, env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the public API, built as a package', () => {
  beforeAll(() => {
    mkdirSync(pkg, { recursive: true });
    const built = run([join(REPO_ROOT, 'scripts', 'build-lib.mjs')], REPO_ROOT, { OUT: join(pkg, 'dist') });
    expect(built.stderr + built.stdout).toBe('');
    expect(built.status).toBe(0);
    // The package's own manifest, so `exports` and `types` are what a user resolves.
    copyFileSync(join(REPO_ROOT, 'package.json'), join(pkg, 'package.json'));
    copyFileSync(join(REPO_ROOT, 'examples', 'api', EXAMPLE), join(work, EXAMPLE));
    writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'api-example', type: 'module', private: true }));
  }, 300_000);

  it('exports and types name the built files', () => {
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { types: string; exports: Record<string, { types: string; import: string }> };
    for (const entry of ['.', './node']) {
      for (const file of [manifest.exports[entry]!.types, manifest.exports[entry]!.import]) expect(() => readFileSync(join(pkg, file)), `${entry}: ${file}`).not.toThrow();
    }
    expect(manifest.types).toBe(manifest.exports['.']!.types);
  });

  it('the example type-checks against the built declarations', () => {
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
        },
        files: [EXAMPLE],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const checked = run([tsc, '-p', join(work, 'tsconfig.json')], work);
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.status).toBe(0);
    // The declarations resolved are the built ones, not the sources.
    const traced = run([tsc, '-p', join(work, 'tsconfig.json'), '--listFiles'], work);
    expect(traced.stdout).toContain(join(pkg, 'dist', 'types', 'src', 'index.d.ts'));
    expect(traced.stdout).not.toContain(join(REPO_ROOT, 'src'));
  }, 120_000);

  it('the example runs: applied, translated to Kyverno, the translation gives the same object', () => {
    const tsx = join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const r = run([tsx, join(work, EXAMPLE)], work);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('gatekeeper: [{"op":"add","path":"/metadata/labels/team","value":"platform"}]');
    expect(r.stdout).toMatch(/^apiVersion: kyverno\.io\/v1\nkind: ClusterPolicy\n/m);
    expect(lines.at(-2)).toBe('kyverno: [{"op":"add","path":"/metadata/labels/team","value":"platform"}]');
    expect(lines.at(-1)).toBe('same object');
  }, 60_000);
});
