/**
 * The command line's conventions: --version, `--flag=value` and `-o=value`, `-o` as the output format in every
 * command (translate writes files only with --output-file/--out-dir), one JSON document for `-o patch` over
 * several resources, a final newline on every output, and colour on a terminal only.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { colorAllowed } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { POD, POLICY, run, tempFiles, type Run } from './support.js';

const root = resolve(import.meta.dirname, '..', '..');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const ESC = '\x1b[';

/** The CLI in-process, as on a terminal where colour is allowed on both streams. */
async function runOnTerminal(argv: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), stdin: () => '', isTTY: true, color: { stdout: true, stderr: true } };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

const POD_B = POD.replace('name: web', 'name: api').replace('metadata:\n', 'metadata:\n  namespace: prod\n');
const POD_C = POD.replace('name: web', 'name: db');

describe('--version and the main help', () => {
  it('prints the package version', async () => {
    for (const flag of ['--version', '-V', 'version']) {
      const r = await run([flag]);
      expect(r.code, flag).toBe(0);
      expect(r.stdout, flag).toBe(`${version}\n`);
      expect(r.stderr).toBe('');
    }
  });

  it('the main help names --no-color and --version; an unknown command is a usage error', async () => {
    const help = await run(['--help']);
    expect(help.stdout).toContain('--no-color');
    expect(help.stdout).toContain('--version');
    const unknown = await run(['toString']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "toString"');
  });
});

describe('--flag=value', () => {
  it('apply takes -o=json, --output=json and --diagnostics=json', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY, 'pod.yaml': POD });
    const base = ['apply', `--policy=${join(dir, 'policy.yaml')}`, `-r=${join(dir, 'pod.yaml')}`];
    const short = await run([...base, '-o=json']);
    expect(short.code, short.stderr).toBe(0);
    expect(JSON.parse(short.stdout).metadata.labels).toEqual({ team: 'platform' });
    const long = await run([...base, '--output=json', '--diagnostics=json']);
    expect(long.stdout).toBe(short.stdout);
    expect(long.stderr).toBe('[]\n');
  });

  it('cel takes --params=FILE and -f=FILE', async () => {
    const dir = tempFiles({ 'params.yaml': 'n: 2\n', 'obj.yaml': 'm: 3\n' });
    const r = await run(['cel', 'params.n + object.m', `--params=${join(dir, 'params.yaml')}`, `-f=${join(dir, 'obj.yaml')}`]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('5\n');
  });
});

describe('apply -o patch', () => {
  it('one resource: its RFC 6902 patch; several: one JSON document naming each resource', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY, 'a.yaml': POD, 'b.yaml': POD_B, 'c.yaml': POD_C });
    const one = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'a.yaml'), '-o', 'patch']);
    expect(one.stdout.endsWith(']\n')).toBe(true);
    expect(JSON.parse(one.stdout)).toEqual([{ op: 'add', path: '/metadata/labels', value: { team: 'platform' } }]);

    const three = await run(['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'a.yaml'), '-r', join(dir, 'b.yaml'), '-r', join(dir, 'c.yaml'), '-o', 'patch']);
    expect(three.code, three.stderr).toBe(0);
    const patch = { op: 'add', path: '/metadata/labels', value: { team: 'platform' } };
    expect(JSON.parse(three.stdout)).toEqual([
      { resource: { apiVersion: 'v1', kind: 'Pod', name: 'web' }, patch: [patch] },
      { resource: { apiVersion: 'v1', kind: 'Pod', namespace: 'prod', name: 'api' }, patch: [patch] },
      { resource: { apiVersion: 'v1', kind: 'Pod', name: 'db' }, patch: [patch] },
    ]);
  });
});

describe('every output ends with a newline', () => {
  it('apply (each format), translate (each format), ir and cel', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY, 'pod.yaml': POD, 'b.yaml': POD_B });
    const p = join(dir, 'policy.yaml');
    const runs: string[][] = [
      ...['yaml', 'json', 'patch', 'diff'].flatMap((o) => [
        ['apply', '-p', p, '-r', join(dir, 'pod.yaml'), '-o', o],
        ['apply', '-p', p, '-r', join(dir, 'pod.yaml'), '-r', join(dir, 'b.yaml'), '-o', o],
      ]),
      ['translate', '-p', p, '--to', 'map'],
      ['translate', '-p', p, '--to', 'map', '-o', 'json'],
      ['translate', '-p', p, '--to', 'kyverno', '-o', 'json'],
      ['ir', '-p', p],
      ['cel', '1 + 1'],
      ['--version'],
    ];
    for (const argv of runs) {
      const r = await run(argv);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout.length, argv.join(' ')).toBeGreaterThan(0);
      expect(r.stdout.endsWith('\n'), argv.join(' ')).toBe(true);
    }
  });
});

describe('translate: -o is the format; files only with --output-file or --out-dir', () => {
  it('-o json prints one object, or a List of several', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY });
    const map = await run(['translate', '-p', join(dir, 'policy.yaml'), '--to', 'map', '-o', 'json']);
    const list = JSON.parse(map.stdout);
    expect(list.kind).toBe('List');
    expect(list.items.map((d: { kind: string }) => d.kind)).toEqual(['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']);
    const kyverno = await run(['translate', '-p', join(dir, 'policy.yaml'), '--to', 'kyverno', '-o=json']);
    expect(JSON.parse(kyverno.stdout).kind).toBe('ClusterPolicy');
  });

  it('-o FILE is refused, with a hint, and writes nothing', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY });
    const out = join(dir, 'out.yaml');
    const r = await run(['translate', '-p', join(dir, 'policy.yaml'), '--to', 'map', '-o', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`-o must be yaml or json, not ${JSON.stringify(out)}; to write a file use --output-file ${out}`);
    expect(r.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
  });

  it('--output-file writes the output there, in the format of -o', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY });
    const out = join(dir, 'out.json');
    const r = await run(['translate', '-p', join(dir, 'policy.yaml'), '--to', 'kyverno', '-o', 'json', `--output-file=${out}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(JSON.parse(readFileSync(out, 'utf8')).kind).toBe('ClusterPolicy');
  });

  it('--out-dir writes one file per policy, a MutatingAdmissionPolicy with its binding', async () => {
    const second = POLICY.replace('name: add-team', 'name: add-owner').replace('team: platform', 'owner: me').replace('labels.team', 'labels.owner');
    const dir = tempFiles({ 'policy.yaml': `${POLICY}---\n${second}` });
    const out = join(dir, 'out', 'nested');
    const r = await run(['translate', '-p', join(dir, 'policy.yaml'), '--to', 'map', '--out-dir', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(readdirSync(out).sort()).toEqual(['add-owner.yaml', 'add-team.yaml']);
    const team = readFileSync(join(out, 'add-team.yaml'), 'utf8');
    expect(team).toMatch(/^apiVersion: admissionregistration\.k8s\.io\/v1\nkind: MutatingAdmissionPolicy\n/);
    expect(team).toContain('---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\n');
    expect(team).toContain('policyName: add-team');
  });

  it('--output-file and --out-dir together are a usage error', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY });
    const r = await run(['translate', '-p', join(dir, 'policy.yaml'), '--to', 'map', '--output-file', join(dir, 'a'), '--out-dir', join(dir, 'b')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot be given together');
  });
});

describe('colour', () => {
  it('is off without a terminal (the bytes tests and pipes always got), and with NO_COLOR or TERM=dumb', () => {
    expect(colorAllowed(true, {})).toBe(true);
    expect(colorAllowed(false, {})).toBe(false);
    expect(colorAllowed(undefined, {})).toBe(false);
    expect(colorAllowed(true, { NO_COLOR: '1' })).toBe(false);
    expect(colorAllowed(true, { NO_COLOR: '' })).toBe(true);
    expect(colorAllowed(true, { TERM: 'dumb' })).toBe(false);
  });

  it('paints a diff, a diagnostic and test results on a terminal; --no-color gives the plain bytes', async () => {
    const dir = tempFiles({ 'policy.yaml': POLICY, 'pod.yaml': POD, 'bad.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: [\n' });
    const diffArgs = ['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'pod.yaml'), '-o', 'diff'];
    const plain = await run(diffArgs);
    const painted = await runOnTerminal(diffArgs);
    expect(plain.stdout).not.toContain(ESC);
    expect(painted.stdout).toContain(`${ESC}32m+    team: platform${ESC}39m`);
    expect(painted.stdout.replace(/\x1b\[\d+m/g, '')).toBe(plain.stdout);
    expect((await runOnTerminal([...diffArgs, '--no-color'])).stdout).toBe(plain.stdout);
    expect((await runOnTerminal(['--no-color', ...diffArgs])).stdout).toBe(plain.stdout);

    const badArgs = ['apply', '-p', join(dir, 'policy.yaml'), '-r', join(dir, 'bad.yaml')];
    const error = await runOnTerminal(badArgs);
    expect(error.code).toBe(2);
    expect(error.stderr).toContain(`${ESC}1m${ESC}31merror TM1001${ESC}39m${ESC}22m`);
    expect(error.stderr.replace(/\x1b\[\d+m/g, '')).toBe((await run(badArgs)).stderr);
  });

  it('paints test results (a pass in green)', async () => {
    const suite = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [policy.yaml]
resources: [pod.yaml]
results:
- policy: add-team
  rule: team
  resources: [web]
  kind: Pod
  patchedResources: patched.yaml
  result: pass
`;
    const kyverno = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: add-team}
spec:
  rules:
  - name: team
    match: {any: [{resources: {kinds: [Pod]}}]}
    mutate:
      patchStrategicMerge:
        metadata: {labels: {team: platform}}
`;
    const patched = POD.replace('  name: web\n', '  name: web\n  labels:\n    team: platform\n');
    const dir = tempFiles({ 'suite/kyverno-test.yaml': suite, 'suite/policy.yaml': kyverno, 'suite/pod.yaml': POD, 'suite/patched.yaml': patched });
    // On a terminal `transmute test` may print another layout than in a pipe: compare terminal with terminal.
    const painted = await runOnTerminal(['test', join(dir, 'suite')]);
    const unpainted = await runOnTerminal(['test', join(dir, 'suite'), '--no-color']);
    expect(painted.code, painted.stdout + painted.stderr).toBe(0);
    expect(painted.stdout).toContain(`${ESC}32m`);
    expect(unpainted.stdout).not.toContain(ESC);
    expect(painted.stdout.replace(/\x1b\[\d+m/g, '')).toBe(unpainted.stdout);
    expect((await run(['test', join(dir, 'suite')])).stdout).not.toContain(ESC);
  });
});
