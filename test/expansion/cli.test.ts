/**
 * `transmute expand` end to end, and the gator-expand conformance fixtures of test/fixtures/gator-expand (my
 * own cases in ../shared/conformance/gatekeeper/INDEX.md's "Expansion cases" layout, plus ordinary cases with
 * `context.operation: ""`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { goYamlKeyLess } from '../../src/dialects/gatekeeper/expansion/gator-output.js';
import { run, tempFiles } from '../cli/support.js';
import { describeShared, REPO_ROOT, sharedPath } from '../support/shared.js';

const TEMPLATE = `apiVersion: expansion.gatekeeper.sh/v1beta1
kind: ExpansionTemplate
metadata:
  name: expand-deployments
spec:
  applyTo:
  - groups: ["apps"]
    kinds: ["Deployment"]
    versions: ["v1"]
  templateSource: spec.template
  generatedGVK: {group: "", version: v1, kind: Pod}
`;
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx
`;

describe('gator-expand conformance fixtures', () => {
  it('every case of test/fixtures/gator-expand passes', async () => {
    const r = await runConformance(['test/fixtures/gator-expand'], { cwd: REPO_ROOT });
    expect(r.outcomes.filter((o) => o.status !== 'passed')).toEqual([]);
    expect(r.outcomes.length).toBe(14);
  });
});

describe('transmute expand', () => {
  it('prints the resultant as gator does (go-yaml key order, trailing newline of Println)', async () => {
    const dir = tempFiles({ 'in/t.yaml': TEMPLATE, 'in/d.yaml': DEPLOYMENT });
    const r = await run(['expand', '-f', join(dir, 'in')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`apiVersion: v1
kind: Pod
metadata:
  labels:
    app: web
  name: web-pod
  namespace: default
  ownerReferences:
  - apiVersion: apps/v1
    kind: Deployment
    name: web
    uid: ""
spec:
  containers:
  - image: nginx
    name: app

`);
  });

  it('writes JSON with -o json (4-space indent, sorted keys)', async () => {
    const dir = tempFiles({ 'all.yaml': `${TEMPLATE}---\n${DEPLOYMENT}` });
    const r = await run(['expand', join(dir, 'all.yaml'), '-o', 'json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { metadata: { name: string } };
    expect(doc.metadata.name).toBe('web-pod');
    expect(r.stdout.startsWith('{\n    "apiVersion": "v1",\n    "kind": "Pod",')).toBe(true);
  });

  it('exits 1 when a generator cannot be expanded, naming it', async () => {
    const dir = tempFiles({ 'all.yaml': `${TEMPLATE.replace('spec.template', 'spec.missing')}---\n${DEPLOYMENT}` });
    const r = await run(['expand', '-f', join(dir, 'all.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('TM3011');
    expect(r.stderr).toContain('error expanding resource web: could not find source field "spec.missing" in resource web');
  });

  it('refuses an invalid ExpansionTemplate as the webhook does (exit 2)', async () => {
    const dir = tempFiles({ 'all.yaml': `${TEMPLATE.replace('kind: Pod', 'kind: Deployment').replace('version: v1, kind', 'version: v1, group: apps, kind').replace('group: "", ', '')}---\n${DEPLOYMENT}` });
    const r = await run(['expand', '-f', join(dir, 'all.yaml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ExpansionTemplate expand-deployments generates GVK apps/v1, Kind=Deployment, but also applies to that same GVK');
  });

  it('prints nothing but the empty line when no template matches, and says --help', async () => {
    const dir = tempFiles({ 'd.yaml': DEPLOYMENT });
    const r = await run(['expand', '-f', join(dir, 'd.yaml')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('\n');
    const help = await run(['expand', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: transmute expand');
    expect((await run(['expand'])).code).toBe(2);
  });

  it('ExpansionTemplates are admitted but ignored by apply, with a warning', async () => {
    const dir = tempFiles({ 't.yaml': TEMPLATE, 'p.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n' });
    const r = await run(['apply', '-p', join(dir, 't.yaml'), '-r', join(dir, 'p.yaml')]);
    expect(r.stderr).toContain('TM2010');
    expect(r.code).toBe(0);
  });
});

describe('go-yaml v2 key order', () => {
  it('puts digits runs in numeric order and non-letters before letters', () => {
    const keys = ['b', 'a10', 'a2', '_x', 'A', 'a'];
    expect(keys.sort((x, y) => (goYamlKeyLess(x, y) ? -1 : goYamlKeyLess(y, x) ? 1 : 0))).toEqual(['_x', 'A', 'a', 'a2', 'a10', 'b']);
  });
});

describeShared('the Istio example of the expansion docs', () => {
  it('expands the Deployment into the Pod with the sidecar the docs show', async () => {
    const page = readFileSync(sharedPath('reference', 'gatekeeper-expansion', 'website_docs_expansion.md'), 'utf8');
    const section = page.slice(page.indexOf('## Mutating Example'));
    const blocks = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const dir = tempFiles({ 'istio.yaml': blocks[0]! });
    const r = await run(['expand', '-f', join(dir, 'istio.yaml')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // The docs abbreviate the Pod (no name, no owner reference); every line they show is printed, in order.
    const printed = r.stdout.split('\n');
    let at = 0;
    for (const line of blocks[1]!.trimEnd().split('\n')) {
      const found = printed.indexOf(line, at);
      expect(found, `line ${JSON.stringify(line)} in order`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
  });
});
