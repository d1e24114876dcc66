import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POD, POLICY, run, tempFiles } from './support.js';

/** The first line of stderr: `file:line:col: error TMxxxx: message`. */
function firstLine(stderr: string): string {
  return stderr.split('\n')[0]!;
}

function noStackTrace(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
}

describe('bad input: one-line errors with file:line:col and exit 2', () => {
  it('malformed YAML', async () => {
    const dir = tempFiles({ 'bad.yaml': 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: [unclosed\n', 'pod.yaml': POD });
    const r = await run(['apply', '-p', join(dir, 'bad.yaml'), '-r', join(dir, 'pod.yaml')]);
    expect(r.code).toBe(2);
    expect(firstLine(r.stderr)).toMatch(/bad\.yaml:\d+:\d+: error TM1001: /);
    expect(r.stdout).toBe('');
    noStackTrace(r.stderr);
  });

  it('an unknown kind', async () => {
    const dir = tempFiles({ 'policy.yaml': 'apiVersion: example.com/v1\nkind: Mystery\nmetadata:\n  name: x\n', 'pod.yaml': POD });
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml')]);
    expect(r.code).toBe(2);
    expect(firstLine(r.stderr)).toMatch(/policy\.yaml:2:7: error TM2001: no dialect reads example\.com\/v1, Kind=Mystery/);
    noStackTrace(r.stderr);
  });

  it('a missing file', async () => {
    const dir = tempFiles({ 'pod.yaml': POD });
    const r = await run(['apply', '-p', join(dir, 'nope.yaml'), '-r', join(dir, 'pod.yaml')]);
    expect(r.code).toBe(2);
    expect(firstLine(r.stderr)).toContain('TM1004');
    expect(firstLine(r.stderr)).toContain('nope.yaml');
    noStackTrace(r.stderr);
  });

  it('a YAML alias bomb is refused, not expanded', async () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 9; i++) {
      const prev = String.fromCharCode(97 + i);
      const next = String.fromCharCode(98 + i);
      bomb.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(',')}]`);
    }
    const dir = tempFiles({ 'bomb.yaml': bomb.join('\n') + '\n', 'policy.yaml': POLICY });
    const started = Date.now();
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'bomb.yaml')]);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.code).toBe(2);
    expect(firstLine(r.stderr)).toMatch(/bomb\.yaml:\d+:\d+: error TM1002: /);
    noStackTrace(r.stderr);
  });

  it('a 50 MB document is read and processed', async () => {
    const big = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: big', 'data:'];
    const line = 'x'.repeat(1000);
    for (let i = 0, size = 0; size < 50 * 1024 * 1024; i++, size += line.length + 10) big.push(`  k${i}: ${line}`);
    const dir = tempFiles({ 'big.yaml': big.join('\n') + '\n', 'policy.yaml': POLICY });
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'big.yaml'), '-o', 'patch']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ op: 'add', path: '/metadata/labels', value: { team: 'platform' } }]);
  }, 120_000);

  it('a key named __proto__ is applied as an ordinary key', async () => {
    const policy = POLICY.replace('object.metadata.labels.team', 'object.metadata.labels.__proto__');
    const dir = tempFiles({ 'policy.yaml': policy, 'pod.yaml': POD.replace('  name: web\n', '  name: web\n  annotations:\n    __proto__: kept\n') });
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml'), '-o', 'json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.getOwnPropertyNames(out.metadata.labels)).toEqual(['__proto__']);
    expect(JSON.stringify(out.metadata.labels)).toBe('{"__proto__":"platform"}');
    expect(JSON.stringify(out.metadata.annotations)).toBe('{"__proto__":"kept"}');
  });

  it('an unknown flag and an unknown command are usage errors', async () => {
    expect((await run(['apply', '--frobnicate'])).code).toBe(2);
    const r = await run(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
  });

  it('an invalid path inside a policy points at the character in the YAML string', async () => {
    const policy = POLICY.replace('object.metadata.labels.team', 'object.metadata..team');
    const dir = tempFiles({ 'policy.yaml': policy, 'pod.yaml': POD });
    const r = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml')]);
    expect(r.code).toBe(2);
    expect(firstLine(r.stderr)).toMatch(/policy\.yaml:11:2\d: error TM2/);
  });
});

describe('commands', () => {
  it('apply -o diff, yaml, patch and --explain', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY, 'pod.yaml': POD });
    const diff = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml'), '-o', 'diff', '--explain']);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('+  labels:\n+    team: platform');
    expect(diff.stderr).toContain('policy add-team rule team set applied');
    const yaml = await run(['apply', '-p', '-', '-r', join(dir, 'pod.yaml')], POLICY);
    expect(yaml.stdout).toContain('  labels:\n    team: platform\n');
  });

  it('every command answers --help', async () => {
    for (const c of ['apply', 'translate', 'test', 'conformance', 'ir', 'cel']) {
      const r = await run([c, '--help']);
      expect(r.code, c).toBe(0);
      expect(r.stdout, c).toMatch(/Usage: transmute /);
    }
    expect((await run(['--help'])).stdout).toContain('Commands:');
  });

  it('translate writes nothing when it fails', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY });
    const r = await run(['translate', '-p', join(dir, 'policy.yaml'), '--to', 'nope', '--output-file', join(dir, 'out.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('TM4004');
  });

  it('ir prints the text form', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY });
    const r = await run(['ir', '-p', join(dir, 'policy.yaml')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('policy add-team');
    expect(r.stdout).toContain('set object.metadata.labels.team = "platform"');
  });
});
