import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { discover } from '../../src/migrate/discover.js';
import type { Library, Outcome } from '../../src/migrate/model.js';
import { rewriteSuite } from '../../src/migrate/suites.js';
import { translateLibrary } from '../../src/migrate/translate.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function library(files: Record<string, string>): Library {
  const root = mkdtempSync(join(tmpdir(), 'transmute-migrate-suites-'));
  roots.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  const found = discover(root);
  if ('error' in found) throw new Error(found.error.message);
  return found.library;
}

const POLICIES = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: first
spec:
  rules:
  - name: label
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            first: "yes"
  - name: check
    match:
      any:
      - resources:
          kinds: [Pod]
    validate:
      pattern:
        metadata:
          name: "?*"
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: second
spec:
  rules:
  - name: label
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            second: "yes"
`;

const SUITE = `name: legacy
policies: [policies.yaml]
resources: [resources.yaml]
results:
- {policy: first, rule: autogen-label, resource: web, kind: Deployment, status: pass}
- {policy: first, rule: check, resource: web, kind: Pod, status: pass}
- {policy: first, rule: nope, resource: web, kind: Pod, status: pass}
- {policy: second, rule: label, resource: web, kind: Pod, status: pass}
- {policy: missing, rule: label, resource: web, kind: Pod, status: pass}
`;

describe('suite rewriting', () => {
  it('marks the entries of migrated mutate rules (autogen names included) and keeps the rest as written', () => {
    const lib = library({ 'policies.yaml': POLICIES, 'kyverno-test.yaml': SUITE, 'resources.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n' });
    const outcomes = translateLibrary(lib, 'kyverno-mpol');
    expect([...outcomes.values()].map((o) => o.status)).toEqual(['translated', 'translated']);
    const suite = lib.files.find((f) => f.role === 'suite')!;
    const r = rewriteSuite(lib, suite, outcomes, join(lib.dir, '..', 'out'));
    const results = parse(r.text!).results;
    expect(results[0]).toEqual({ isMutatingPolicy: true, kind: 'Deployment', policy: 'first', resource: 'web', status: 'pass' });
    expect(results[1]).toEqual({ kind: 'Pod', policy: 'first', resource: 'web', rule: 'check', status: 'pass' });
    expect(results[2].rule).toBe('nope'); // a rule the policy does not have: kept, and it fails in both suites
    expect(results[3]).toMatchObject({ isMutatingPolicy: true, policy: 'second' });
    expect(results[4].rule).toBe('label');
    expect(r.links.map((l) => [l.entry, l.role])).toEqual([
      [0, 'proof'],
      [1, 'left'],
      [2, 'proof'],
      [3, 'proof'],
    ]);
    expect(r.outcome).toEqual({ rel: 'kyverno-test.yaml', rewritten: 2, merged: 0, problems: [] });
  });

  it('merges the entries of several rules of one policy on the same resources into one, expecting the policy result', () => {
    const twoRules = POLICIES.split('---')[0]!.replace(
      '  - name: check',
      `  - name: other
    match:
      any:
      - resources:
          kinds: [ConfigMap]
    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            other: "yes"
  - name: check`,
    );
    const lib = library({
      'policies.yaml': twoRules,
      'kyverno-test.yaml': `policies: [policies.yaml]
resources: [resources.yaml]
results:
- {policy: first, rule: other, kind: Pod, resources: [web], result: skip}
- {policy: first, rule: check, kind: Pod, resources: [web], result: pass}
- {policy: first, rule: label, kind: Pod, resources: [web], result: pass, patchedResources: patched.yaml}
- {policy: first, rule: label, kind: Pod, resources: [db], result: skip}
`,
    });
    const r = rewriteSuite(lib, lib.files.find((f) => f.role === 'suite')!, translateLibrary(lib, 'kyverno-mpol'), join(lib.dir, '..', 'out'));
    expect(parse(r.text!).results).toEqual([
      { isMutatingPolicy: true, kind: 'Pod', patchedResources: 'patched.yaml', policy: 'first', resources: ['web'], result: 'pass' },
      { kind: 'Pod', policy: 'first', resources: ['web'], result: 'pass', rule: 'check' },
      { isMutatingPolicy: true, kind: 'Pod', policy: 'first', resources: ['db'], result: 'skip' },
    ]);
    expect(r.links).toEqual([
      { entry: 0, key: 'policies.yaml#0', role: 'proof' },
      { entry: 1, key: 'policies.yaml#0', role: 'left' },
      { entry: 2, key: 'policies.yaml#0', role: 'proof', migratedEntry: 0 },
      { entry: 3, key: 'policies.yaml#0', role: 'proof', migratedEntry: 2 },
    ]);
    expect(r.outcome).toMatchObject({ rewritten: 3, merged: 1 });
  });

  it('names the policies applied before an entry that stay of another kind', () => {
    const lib = library({ 'policies.yaml': POLICIES, 'kyverno-test.yaml': SUITE });
    const outcomes = new Map<string, Outcome>(translateLibrary(lib, 'kyverno-mpol'));
    outcomes.set('policies.yaml#0', { status: 'refused', refusals: [{ code: 'TM4001', class: 'yet', message: 'for the test' }], notes: [] });
    const r = rewriteSuite(lib, lib.files.find((f) => f.role === 'suite')!, outcomes, join(lib.dir, '..', 'out'));
    expect(r.links).toEqual([{ entry: 3, key: 'policies.yaml#1', role: 'proof', before: ['ClusterPolicy first'] }]);
    expect(parse(r.text!).results[0].rule).toBe('autogen-label');
  });

  it('copies a suite with nothing to change byte for byte, and one without results with a problem', () => {
    const lib = library({ 'a/kyverno-test.yaml': 'policies: []\nresults: []\n', 'b/kyverno-test.yaml': 'policies: []\n' });
    const [a, b] = lib.files.map((f) => rewriteSuite(lib, f, new Map(), join(lib.dir, '..', 'out')));
    expect(a!.text).toBeUndefined();
    expect(a!.outcome.problems).toEqual([]);
    expect(b!.text).toBeUndefined();
    expect(b!.outcome.problems[0]).toMatch(/has no "results" list; copied unchanged$/);
  });
});

describe('discovery', () => {
  it('finds suites in hidden folders, classifies rules, and keeps YAML that does not load as a copied file', () => {
    const lib = library({
      'p/.kyverno-test/kyverno-test.yaml': 'results: []\n',
      'p/policy.json': JSON.stringify({ apiVersion: 'kyverno.io/v1', kind: 'Policy', metadata: { name: 'x', namespace: 'ns' }, spec: { rules: [{ name: 'g', generate: {} }] } }),
      'broken.yaml': 'a: [\n',
      '.git/config.yaml': 'not: read\n',
    });
    expect(lib.files.map((f) => [f.rel, f.role])).toEqual([
      ['broken.yaml', 'other'],
      ['p/.kyverno-test/kyverno-test.yaml', 'suite'],
      ['p/policy.json', 'policies'],
    ]);
    expect(lib.policies[0]).toMatchObject({ kind: 'Policy', name: 'x', namespace: 'ns', rules: [{ name: 'g', kind: 'generate' }] });
    expect(lib.warnings[0]!.message).toMatch(/broken\.yaml does not load as YAML .*; copied unchanged$/);
  });
});
