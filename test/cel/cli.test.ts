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

  it('prints a syntax error with a caret and returns 1', async () => {
    const t = io();
    expect(await runCelCommand(['1 +'], t.io)).toBe(1);
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

  it('honours --k8s-version', async () => {
    const t = io();
    expect(await runCelCommand(['[2, 1].sort()', '--k8s-version', '1.33'], t.io)).toBe(1);
    const u = io();
    expect(await runCelCommand(['[2, 1].sort()', '--k8s-version', '1.34'], u.io)).toBe(0);
    expect(u.out.join('')).toBe('- 1\n- 2\n');
  });
});
