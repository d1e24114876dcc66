/** `--validate strict|warn|ignore` on the commands that read policies, and what `translate` writes. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { run, tempFiles, POD } from '../cli/support.js';

const TYPO = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: add-labels
spec:
  rules:
  - name: add-labels
    match:
      any:
      - resources:
          kind: [Pod]
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            team: a
`;

const assignMetadata = (name: string, label: string): string => `apiVersion: mutations.gatekeeper.sh/v1
kind: AssignMetadata
metadata:
  name: ${name}
spec:
  match:
    namespaces: [prod]
  location: metadata.labels.${label}
  parameters:
    assign:
      value: x
`;

describe('--validate', () => {
  it('strict (the default) refuses a typo at its position with exit 2, in ir, apply and translate', async () => {
    const dir = tempFiles({ 'p.yaml': TYPO, 'pod.yaml': POD });
    const p = join(dir, 'p.yaml');
    const expected = `${p}:11:11: error TM2008: strict decoding error: unknown field "spec.rules[0].match.any[0].resources.kind"`;
    for (const argv of [['ir', '-p', p], ['apply', '-p', p, '-r', join(dir, 'pod.yaml')], ['translate', '-p', p, '--to', 'map']]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toContain(expected);
      expect(r.stdout).toBe('');
    }
  });

  it('warn prints the same diagnostic as a warning and goes on; ignore is silent', async () => {
    const dir = tempFiles({ 'p.yaml': TYPO });
    const p = join(dir, 'p.yaml');
    const warn = await run(['ir', '-p', p, '--validate', 'warn']);
    expect(warn.code).toBe(0);
    expect(warn.stderr).toContain(`${p}:11:11: warning TM2008: strict decoding error: unknown field`);
    expect(warn.stdout).toContain('policy add-labels');
    const ignore = await run(['ir', '-p', p, '--validate=ignore']);
    expect(ignore.code).toBe(0);
    expect(ignore.stderr).toBe('');
  });

  it('refuses a mode kubectl would not accept', async () => {
    const dir = tempFiles({ 'p.yaml': TYPO });
    const r = await run(['ir', '-p', join(dir, 'p.yaml'), '--validate', 'lenient']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--validate must be strict, warn or ignore, not "lenient"');
  });

  it('reads a Kyverno webhook refusal with Kyverno\'s own message', async () => {
    const noKinds = TYPO.replace('          kind: [Pod]\n', '          namespaces: [prod]\n');
    const dir = tempFiles({ 'p.yaml': noKinds });
    const r = await run(['ir', '-p', join(dir, 'p.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error TM2004: at least one element must be specified in a kind block, the kind attribute is mandatory when working with the resources element');
  });
});

describe('translate writes what a cluster admits', () => {
  it('gives an AssignMetadata matching namespaces but no kinds a Kyverno match on every kind, outside background mode', async () => {
    const dir = tempFiles({ 'a.yaml': assignMetadata('ns-label', 'team') });
    const r = await run(['translate', '-p', join(dir, 'a.yaml'), '--to', 'kyverno']);
    expect(r.code).toBe(0);
    const out = parseYaml(r.stdout) as { metadata: { name: string }; spec: { background: boolean; rules: { match: { any: { resources: { kinds: string[] } }[] } }[] } };
    expect(out.metadata.name).toBe('ns-label');
    expect(out.spec.background).toBe(false);
    expect(out.spec.rules[0]!.match.any[0]!.resources.kinds).toEqual(['*']);
    // The translation is itself admitted when read back.
    const back = await run(['ir', '-p', '-'], r.stdout);
    expect(back.code).toBe(0);
  });

  it('names translations after their sources: two Gatekeeper files give two policy names', async () => {
    const dir = tempFiles({
      'a.yaml': `${assignMetadata('team-label', 'team')}---\n${assignMetadata('tier-label', 'tier')}`,
      'b.yaml': `${assignMetadata('owner-label', 'owner')}---\n${assignMetadata('cost-label', 'cost')}`,
    });
    const names: string[] = [];
    for (const f of ['a.yaml', 'b.yaml']) {
      const r = await run(['translate', '-p', join(dir, f), '--to', 'kyverno']);
      expect(r.code).toBe(0);
      names.push(...parseAllDocuments(r.stdout).map((d) => (d.toJS() as { metadata: { name: string } }).metadata.name));
    }
    expect(new Set(names).size).toBe(names.length);
    expect(names.every((n) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(n) && n.length <= 63)).toBe(true);
  });

  it('--name renames the one emitted policy and its binding; refuses it when several are emitted', async () => {
    const dir = tempFiles({ 'a.yaml': assignMetadata('team-label', 'team'), 'two.yaml': `${assignMetadata('a', 'a')}---\n${TYPO.replace('kind: [Pod]', 'kinds: [Pod]').replace('name: add-labels\nspec', 'name: other\nspec')}` });
    const map = await run(['translate', '-p', join(dir, 'a.yaml'), '--to', 'map', '--name', 'team']);
    expect(map.code).toBe(0);
    const docs = parseAllDocuments(map.stdout).map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec: { policyName?: string } });
    expect(docs.find((d) => d.kind === 'MutatingAdmissionPolicy')!.metadata.name).toBe('team');
    expect(docs.find((d) => d.kind === 'MutatingAdmissionPolicyBinding')!.spec.policyName).toBe('team');
    const bad = await run(['translate', '-p', join(dir, 'a.yaml'), '--to', 'kyverno', '--name', 'Team_1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a valid object name');
    const several = await run(['translate', '-p', join(dir, 'two.yaml'), '--to', 'kyverno', '--name', 'x']);
    expect(several.code).toBe(2);
    expect(several.stderr).toContain('--name names one policy, but this translation writes 2');
  });

  it('--name longer than Kyverno allows is caught by admitting the output again (TM4006, nothing written)', async () => {
    const dir = tempFiles({ 'a.yaml': assignMetadata('team-label', 'team') });
    const r = await run(['translate', '-p', join(dir, 'a.yaml'), '--to', 'kyverno', '--name', 'a'.repeat(70)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error TM4006: the generated ClusterPolicy');
    expect(r.stdout).toBe('');
  });
});
