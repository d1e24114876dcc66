/**
 * The package as a user gets it: `npm pack` (which builds the bundle in prepack) → `npm install -g` of the
 * tarball into an empty prefix, offline (the package has no runtime dependencies: everything is bundled) →
 * `transmute --version` and `transmute apply` run from that prefix, outside the repository, so nothing can be
 * found in the repository's node_modules. The tarball holds the CLI bundle, the library bundles with their type
 * declarations, README, LICENSE and package.json only.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp.js';

const root = resolve(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };

/** The environment of a user's shell: none of the npm_* variables `npm test` sets for its child processes. */
const userEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
const npmEnv = { ...userEnv, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

function npm(args: string[], cwd: string): SpawnSyncReturns<string> {
  return spawnSync('npm', args, { cwd, env: npmEnv, encoding: 'utf8', timeout: 120_000 });
}

/**
 * The bundle files `node <main.js>` reads before running anything: main.js and the chunks it imports statically,
 * transitively. Each command's chunk is imported dynamically, when that command runs.
 */
function startupFiles(main: string): Map<string, number> {
  const files = new Map<string, number>();
  const pending = [main];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    files.set(file, text.length);
    for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*["'](\.{1,2}\/[^"']+)["']/g)) pending.push(resolve(dirname(file), m[1]!));
  }
  return files;
}

function explain(r: SpawnSyncReturns<string>): string {
  return `exit ${r.status}${r.error ? ` (${r.error.message})` : ''}\n${r.stdout}\n${r.stderr}`;
}

describe('npm pack → npm install -g → transmute', () => {
  it('installs from the tarball into an empty prefix and runs', () => {
    const work = tempDir('package');
    const pack = npm(['pack', '--json', '--pack-destination', work], root);
    expect(pack.status, explain(pack)).toBe(0);
    // npm prints the build's output before the JSON report.
    const report = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[\n'))) as { filename: string; files: { path: string }[] }[];
    const files = report[0]!.files.map((f) => f.path).sort();

    expect(files).toContain('bin/transmute.js');
    expect(files).toContain('dist/cli/main.js');
    expect(files).toContain('dist/cli/THIRD-PARTY-LICENSES.txt');
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
    expect(files).toEqual(expect.arrayContaining(['dist/lib/index.js', 'dist/lib/node.js', 'dist/types/src/index.d.ts', 'dist/types/src/node.d.ts']));
    const unexpected = files.filter(
      (f) => !/^(bin\/transmute\.js|dist\/cli\/.+\.(js|txt)|dist\/lib\/[^/]+\.js|dist\/types\/.+\.d\.ts|LICENSE|README\.md|package\.json)$/.test(f),
    );
    expect(unexpected, 'the tarball holds the bundles, type declarations, README, LICENSE and package.json only').toEqual([]);
    expect(files.filter((f) => /^(test|golden|src|examples|scripts)\//.test(f) || /\.test\.|(?<!\.d)\.ts$/.test(f))).toEqual([]);

    const prefix = join(work, 'prefix');
    const install = npm(['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', join(work, report[0]!.filename)], work);
    expect(install.status, explain(install)).toBe(0);

    const transmute = (args: string[]) => spawnSync(join(prefix, 'bin', 'transmute'), args, { cwd: work, env: userEnv, encoding: 'utf8', timeout: 60_000 });
    const version = transmute(['--version']);
    expect(version.status, explain(version)).toBe(0);
    expect(version.stdout).toBe(`${pkg.version}\n`);

    const apply = transmute(['apply', '-p', join(root, 'examples/ir/harden-pods.yaml'), '-r', join(root, 'examples/resources/pod.yaml'), '-o', 'patch']);
    expect(apply.status, explain(apply)).toBe(0);
    expect(apply.stderr).toBe('');
    const patch = JSON.parse(apply.stdout) as { op: string; path: string }[];
    expect(patch).toContainEqual(expect.objectContaining({ op: 'add', path: '/metadata/labels/team' }));

    // --help and --version read main and a few small shared chunks, no command, dialect or library code.
    const installed = join(prefix, 'lib', 'node_modules', pkg.name, 'dist', 'cli', 'main.js');
    const startup = startupFiles(installed);
    const bytes = [...startup.values()].reduce((a, b) => a + b, 0);
    expect(bytes, [...startup.keys()].join('\n')).toBeLessThan(64 * 1024);

    const help = transmute(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: transmute COMMAND');
  }, 120_000);
});
