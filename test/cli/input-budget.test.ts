/**
 * Issue 13, "Memory budget", through the CLI: huge inputs are refused from their sizes, in milliseconds, with a
 * positioned TM1010 and exit 2, instead of a V8 heap abort after a minute. The files are sparse: they take no
 * disk, and had any been read its NUL bytes would have been refused as binary (TM1009) instead.
 */
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { POD, POLICY, run, tempFiles } from './support.js';

const MiB = 1024 * 1024;

function sparse(path: string, size: number): string {
  writeFileSync(path, '');
  truncateSync(path, size);
  return path;
}

describe('the input budget of one run', () => {
  const dir = tempFiles({ 'policy.yaml': POLICY, 'pod.yaml': POD });
  const policy = join(dir, 'policy.yaml');
  const dumps = join(dir, 'dumps');
  mkdirSync(dumps);
  for (const name of ['a.yaml', 'b.yaml', 'c.yaml', 'd.yaml']) sparse(join(dumps, name), 50 * MiB);

  // The timings below are of the refusal, not of loading each command's modules the first time.
  beforeAll(async () => {
    for (const command of ['apply', 'ir', 'translate']) await run([command, '--help']);
  }, 60_000);

  it('refuses a folder of four 50 MB resource files at once', async () => {
    const started = Date.now();
    const r = await run(['apply', '-p', policy, '-r', dumps]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(
      `${dumps}:1:1: error TM1010: 4 inputs are 200 MiB on top of ${POLICY.length} bytes already read, over the input budget of 128 MiB for one run; nothing was read (raise it with --max-input-size)`,
    );
  });

  it('refuses a 50 MB policy file from its size, in one line', async () => {
    const big = sparse(join(dir, 'big-policy.yaml'), 50 * MiB);
    for (const argv of [['ir', '-p', big], ['translate', '-p', big, '--to', 'kyverno'], ['apply', '-p', big, '-r', join(dir, 'pod.yaml')]]) {
      const started = Date.now();
      const r = await run(argv);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(r.code).toBe(2);
      expect(r.stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(3);
      expect(r.stderr).toContain(
        `${big}:1:1: error TM1010: the input is 50 MiB, over the policy input budget of 32 MiB for one run (a quarter of the input budget); nothing was read`,
      );
    }
  });

  it('refuses a folder given to --old-object at once', async () => {
    const started = Date.now();
    const r = await run(['apply', '-p', policy, '-r', join(dir, 'pod.yaml'), '--old-object', dumps]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--old-object ${dumps} is a folder; --old-object takes one file`);
  });

  it('--max-input-size sets the budget, in bytes or as a quantity, and refuses what is not a size', async () => {
    const pod = join(dir, 'pod.yaml');
    const padded = join(dir, 'padded-pod.yaml');
    writeFileSync(padded, POD + '#'.repeat(1999 - POD.length) + '\n');
    const small = await run(['apply', '-p', policy, '-r', padded, '--max-input-size', '1500']);
    expect(small.code).toBe(2);
    expect(small.stderr).toContain(`${padded}:1:1: error TM1010: the input is 2.0 KiB on top of ${POLICY.length} bytes already read, over the input budget of 1.5 KiB for one run`);
    const policyOver = await run(['apply', '-p', policy, '-r', pod, '--max-input-size', '500']);
    expect(policyOver.stderr).toContain(`over the policy input budget of 125 bytes for one run (a quarter of the input budget)`);
    expect((await run(['apply', '-p', policy, '-r', pod, '--max-input-size=4Ki'])).code).toBe(0);
    const bad = await run(['ir', '-p', policy, '--max-input-size', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('error TM7001: --max-input-size "lots" is not a size (a byte count, or a quantity such as 512Mi or 2G)\n');
  });
});
