#!/usr/bin/env node
// The CLI entry point: runs the compiled code in dist/ (built by `npm ci` through the prepare script).
import { main } from '../dist/src/cli/main.js';

const code = await main(process.argv.slice(2));
process.exitCode = code;
