/** `transmute ... | head`: when the reader goes away, transmute stops quietly instead of dying on EPIPE. */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POLICY, tempFiles } from './support.js';

const root = resolve(import.meta.dirname, '..', '..');

describe('a closed standard output', () => {
  it('ends the run quietly', () => {
    const pods = Array.from({ length: 3000 }, (_, i) => `apiVersion: v1\nkind: Pod\nmetadata: {name: p${i}, namespace: a}\n`).join('---\n');
    const dir = tempFiles({
      'policy.yaml': POLICY,
      'pods.yaml': pods,
      'cli.mts': `import { main } from ${JSON.stringify(join(root, 'src/cli/main.ts'))};\nprocess.exitCode = await main(process.argv.slice(2));\n`,
    });
    const tsx = join(root, 'node_modules/.bin/tsx');
    const script = `"${tsx}" "${join(dir, 'cli.mts')}" apply -p "${join(dir, 'policy.yaml')}" -r "${join(dir, 'pods.yaml')}" 2>"${join(dir, 'err')}" | head -1; echo "status \${PIPESTATUS[0]}"; cat "${join(dir, 'err')}"`;
    const r = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 60_000 });
    expect(r.stdout).toBe('apiVersion: v1\nstatus 0\n');
  }, 60_000);
});
