#!/usr/bin/env node
/**
 * Builds the library (`npm run build`, `prepare`, `prepack`): dist/lib/index.js, the browser-safe public API
 * (src/index.ts), and dist/lib/node.js, the same plus file reading and `test` (src/node.ts), two ESM bundles
 * with every dependency inside (a program imports one of the two); then their declarations into dist/types/
 * (tsconfig.types.json).
 * `OUT=DIR` builds into DIR instead of dist/ (the tests build into a temporary folder).
 *
 * Plain JavaScript on purpose, as build-cli.mjs: `prepare` runs it before anything is compiled.
 */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(root, process.env.OUT ?? 'dist');
const lib = join(out, 'lib');
const types = join(out, 'types');
rmSync(lib, { recursive: true, force: true });
rmSync(types, { recursive: true, force: true });

const common = { absWorkingDir: root, bundle: true, format: 'esm', target: 'es2022', minifySyntax: true, legalComments: 'none', logLevel: 'warning' };
// The public API for the browser and Node alike: `browser` picks the dependencies' ESM builds (yaml's CommonJS
// build requires `process`), and nothing in it imports a Node built-in (test/api/browser-bundle.test.ts).
await build({ ...common, entryPoints: { index: 'src/index.ts' }, outdir: lib, platform: 'browser' });
// The Node entry (file reading, `test`): CommonJS dependencies may require Node's built-ins, and an ESM bundle
// has no `require` (as in build-cli.mjs).
await build({
  ...common,
  entryPoints: { node: 'src/node.ts' },
  outdir: lib,
  platform: 'node',
  banner: { js: "import { createRequire as __transmuteCreateRequire } from 'node:module'; const require = __transmuteCreateRequire(import.meta.url);" },
});

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.types.json'), '--outDir', types], { cwd: root, stdio: 'inherit' });
