#!/usr/bin/env node
/**
 * The start-up cost of the built CLI against `node -e 0` on the same machine: RUNS paired, alternating runs of
 * each (so machine load hits both alike), and the ratio of the medians. Usage, after `npm run build`:
 *   node scripts/startup-ratio.mjs [RUNS]      (default 20)
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'transmute.js');
const runs = Number(process.argv[2] ?? 20);

function time(args) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

for (const args of [['--version'], ['--help']]) {
  const base = [];
  const cli = [];
  time(['-e', '0']);
  time([bin, ...args]); // warm the file cache
  for (let i = 0; i < runs; i++) {
    base.push(time(['-e', '0']));
    cli.push(time([bin, ...args]));
  }
  const [b, c] = [median(base), median(cli)];
  console.log(`transmute ${args.join(' ')}: ${c.toFixed(1)} ms, node -e 0: ${b.toFixed(1)} ms, ratio ${(c / b).toFixed(2)}x (median of ${runs} paired runs)`);
}
