#!/usr/bin/env node
/**
 * Bundles the command line into dist/cli/ (run by `npm run build`, `prepare` and `prepack`): one ESM entry with
 * main and the help, and one chunk per command loaded on demand (src/cli/main.ts imports each command
 * dynamically), so `transmute --version` and `transmute --help` read a few kilobytes instead of ~400 modules.
 * Every runtime dependency is bundled, so the package installs with no dependencies; their licences are
 * collected into dist/cli/THIRD-PARTY-LICENSES.txt.
 *
 * Plain JavaScript on purpose: `prepare` runs it on a git install, before anything is compiled.
 */
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Whitespace and syntax only: names stay readable in the rare internal-error message.
  minifyWhitespace: true,
  minifySyntax: true,
  chunkNames: 'chunks/[name]-[hash]',
  define: { TRANSMUTE_VERSION: JSON.stringify(pkg.version) },
  // CommonJS dependencies (jmespath, fast-json-patch) may require Node's built-ins; an ESM bundle has no `require`.
  banner: { js: "import { createRequire as __transmuteCreateRequire } from 'node:module'; const require = __transmuteCreateRequire(import.meta.url);" },
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});

/** The package folder (node_modules/<name> or node_modules/@scope/<name>) of a bundled input, or undefined. */
function packageDir(input) {
  const parts = input.split(/[\\/]/);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return undefined;
  const name = parts[at + 1]?.startsWith('@') ? parts.slice(at + 1, at + 3) : parts.slice(at + 1, at + 2);
  return [...parts.slice(0, at + 1), ...name].join(sep);
}

const bundled = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const dir = packageDir(input);
  if (!dir || bundled.has(dir)) continue;
  const meta = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  const licenseFile = readdirSync(join(root, dir)).sort().find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
  bundled.set(dir, { name: meta.name, version: meta.version, license: meta.license, text: licenseFile ? readFileSync(join(root, dir, licenseFile), 'utf8').trim() : undefined });
}
const notices = [...bundled.values()]
  .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  .map((p) => `${p.name} ${p.version} (${p.license})\n\n${p.text ?? `Licensed under ${p.license}; the package ships no licence file.`}\n`)
  .join(`\n${'-'.repeat(78)}\n\n`);
writeFileSync(join(outdir, 'THIRD-PARTY-LICENSES.txt'), `${pkg.name} bundles the following packages.\n\n${'-'.repeat(78)}\n\n${notices}`);

const files = readdirSync(outdir, { recursive: true }).filter((f) => f.endsWith('.js'));
if (!existsSync(join(outdir, 'main.js'))) throw new Error('build-cli: dist/cli/main.js was not written');
console.log(`build-cli: ${files.length} files in ${relative(root, outdir)} (${bundled.size} bundled packages)`);
