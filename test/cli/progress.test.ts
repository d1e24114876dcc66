/** Issue 17 item 4: a progress line on a terminal's standard error for long runs, erased at the end; never in a pipe. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { progressLine } from '../../src/cli/progress.js';
import { POLICY, tempFiles } from './support.js';

function capture(stderrTTY: boolean): { io: CliIO; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t), stdin: () => '', isTTY: false, stderrTTY }, out: () => out, err: () => err };
}

describe('progress line', () => {
  it('rewrites one line at most five times a second and erases it', () => {
    const c = capture(true);
    let now = 0;
    const p = progressLine(c.io, 5000, 'resources', () => now);
    p.step(0);
    now = 100;
    p.step(10); // too soon: not shown
    now = 250;
    p.step(2500);
    p.end();
    expect(c.err()).toBe('\r\x1b[Ktransmute: 0/5,000 resources\r\x1b[Ktransmute: 2,500/5,000 resources\r\x1b[K');
  });

  it('stays silent for short runs and off a terminal', () => {
    for (const [tty, total] of [[true, 10], [false, 5000]] as const) {
      const c = capture(tty);
      const p = progressLine(c.io, total, 'resources', () => 0);
      p.step(0);
      p.end();
      expect(c.err()).toBe('');
    }
  });

  it('apply over 1,200 resources shows it on a terminal, with the same output as in a pipe', async () => {
    const pods = Array.from({ length: 1200 }, (_, i) => `apiVersion: v1\nkind: Pod\nmetadata: {name: p${i}, namespace: a}\n`).join('---\n');
    const dir = tempFiles({ 'policy.yaml': POLICY, 'pods.yaml': pods });
    const argv = ['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pods.yaml')];
    const tty = capture(true);
    const pipe = capture(false);
    expect(await main(argv, tty.io)).toBe(0);
    expect(await main(argv, pipe.io)).toBe(0);
    expect(tty.out()).toBe(pipe.out());
    expect(pipe.err()).toBe('');
    expect(tty.err().startsWith('\r\x1b[Ktransmute: 0/1,200 resources')).toBe(true);
    expect(tty.err().endsWith('\r\x1b[K')).toBe(true);
  }, 60_000);
});
