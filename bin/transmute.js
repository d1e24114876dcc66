#!/usr/bin/env node
// The command `transmute`: runs the bundle in dist/cli/ (built by scripts/build-cli.mjs through `npm run build`,
// which `npm ci`, `npm pack` and a git install run as prepare/prepack).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
