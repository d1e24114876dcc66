import { describe, expect, it } from 'vitest';
import { runCelCommand } from '../../src/cel/cli.js';

function io(files: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      stdout: (s: string) => out.push(s),
      stderr: (s: string) => err.push(s),
      readFile: (p: string) => {
        if (!(p in files)) throw new Error('ENOENT');
        return files[p]!;
      },
    },
  };
}

describe('transmute cel', () => {
  it('evaluates against an object file and prints YAML', async () => {
    const t = io({ 'pod.yaml': 'spec:\n  replicas: 3\n  containers:\n  - name: app\n' });
    const code = await runCelCommand(['Object{spec: Object.spec{replicas: object.spec.replicas + 1}}', '-f', 'pod.yaml'], t.io);
    expect(code).toBe(0);
    expect(t.out.join('')).toBe('spec:\n  replicas: 4\n');
  });

  it('prints a syntax error with a caret and returns 2, as the same error in a policy does', async () => {
    const t = io();
    expect(await runCelCommand(['1 +'], t.io)).toBe(2);
    expect(t.err.join('')).toContain('<expr>:1:4: error TM5001');
    expect(t.err.join('')).toContain('^');
  });

  it('reports evaluation errors and returns 1', async () => {
    const t = io({ 'o.yaml': 'a: 1\n' });
    expect(await runCelCommand(['object.b', '-f', 'o.yaml'], t.io)).toBe(1);
    expect(t.err.join('')).toContain('TM5003: no such key: b');
  });

  it('returns 2 on bad usage or unreadable input', async () => {
    expect(await runCelCommand([], io().io)).toBe(2);
    expect(await runCelCommand(['1', '--bogus'], io().io)).toBe(2);
    expect(await runCelCommand(['1', '-f', 'missing.yaml'], io().io)).toBe(2);
    expect(await runCelCommand(['1', '--k8s-version', 'x'], io().io)).toBe(2);
  });

  it('returns 2 for a compile error (an unknown identifier), 1 only for a failed evaluation', async () => {
    const t = io();
    expect(await runCelCommand(['nosuch + 1'], t.io)).toBe(2);
    expect(t.err.join('')).toMatch(/<expr>:1:1: error TM5002/);
    expect(await runCelCommand(['1 / 0'], io().io)).toBe(1);
  });

  it('names standard input once: -f - and --old-object - together are a usage error', async () => {
    const t = io({ '-': 'a: 1\n' });
    expect(await runCelCommand(['object', '-f', '-', '--old-object', '-'], t.io)).toBe(2);
    expect(t.err.join('')).toContain('standard input (-) is named by -f and --old-object');
  });

  it('refuses an input that is not a mapping, or holds control characters, with exit 2', async () => {
    const t = io({ 'n.yaml': '42\n', 's.yaml': '- a\n', 'c.yaml': 'a: "x"\x1b]0;t\x07\n' });
    expect(await runCelCommand(['object', '-f', 'n.yaml'], t.io)).toBe(2);
    expect(await runCelCommand(['object', '-f', 's.yaml'], t.io)).toBe(2);
    expect(t.err.join('')).toContain('n.yaml:1:1: error TM1005: object must be a mapping, not a number');
    expect(t.err.join('')).toContain('s.yaml:1:1: error TM1005: object must be a mapping, not a sequence');
    const c = io({ 'c.yaml': 'a: x\x1b]0;t\x07\n' });
    expect(await runCelCommand(['object', '--params', 'c.yaml'], c.io)).toBe(2);
    expect(c.err.join('')).toContain('c.yaml:1:5: error TM1009');
    expect(c.err.join('')).not.toMatch(/[\x07\x1b]/);
  });

  it('honours --k8s-version', async () => {
    const t = io();
    // A function the version does not have is a compile error: bad input (2), not a failed evaluation.
    expect(await runCelCommand(['[2, 1].sort()', '--k8s-version', '1.33'], t.io)).toBe(2);
    const u = io();
    expect(await runCelCommand(['[2, 1].sort()', '--k8s-version', '1.34'], u.io)).toBe(0);
    expect(u.out.join('')).toBe('- 1\n- 2\n');
  });
});
