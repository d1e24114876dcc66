/**
 * A migrated policy no suite or chainsaw test checks is compared on the library's example objects
 * (src/migrate/prove-samples.ts): each object in the policy file's folder and below is admitted through the
 * source and through the migration, and the two results must agree; an example the source leaves unchanged
 * alone proves nothing, nor one that is not a valid instance of its kind or that the source cannot admit offline.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discover } from '../../src/migrate/discover.js';
import type { Outcome } from '../../src/migrate/model.js';
import { proveBySamples } from '../../src/migrate/prove-samples.js';
import type { MigrateReport } from '../../src/migrate/report.js';
import { translateLibrary } from '../../src/migrate/translate.js';
import { run } from '../cli/support.js';
import { ZONE_LABEL_POLICY } from '../support/migrate-fixtures.js';
import { tempDir } from '../support/temp.js';

const RUN_AS_NON_ROOT = `apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: run-as-non-root
spec:
  applyTo:
  - groups: [""]
    kinds: ["Pod"]
    versions: ["v1"]
  match:
    scope: Namespaced
    kinds:
    - apiGroups: ["*"]
      kinds: ["Pod"]
  location: "spec.containers[name:*].securityContext.runAsNonRoot"
  parameters:
    pathTests:
    - subPath: "spec.containers[name:*].securityContext.runAsNonRoot"
      condition: MustNotExist
    assign:
      value: true
`;

const pod = (name: string, extra = ''): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: default
spec:
  containers:
  - name: app
    image: nginx${extra}
`;

const SET_ALREADY = `
    securityContext:
      runAsNonRoot: false`;

/** A ClusterPolicy giving a custom kind's objects a default size, and an example object of that kind. */
const WIDGET_SIZE = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: widget-size}
spec:
  rules:
  - name: size
    match:
      any:
      - resources:
          kinds: [Widget]
    mutate:
      patchStrategicMerge:
        spec:
          +(size): small
`;
const WIDGET = 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec: {colour: blue}\n';

async function migrate(files: Record<string, string>, to = 'map', text = false): Promise<{ report: MigrateReport; stdout: string; root: string }> {
  const root = tempDir('migrate-samples', files);
  const args = ['migrate', join(root, 'lib'), '--out-dir', join(root, 'out'), '--to', to];
  const r = await run(text ? args : [...args, '--json']);
  expect(r.stderr).toBe('');
  return { report: text ? (undefined as unknown as MigrateReport) : (JSON.parse(r.stdout) as MigrateReport), stdout: r.stdout, root };
}

function only(report: MigrateReport) {
  const p = report.policies.find((x) => x.source.name === 'run-as-non-root');
  expect(p).toBeDefined();
  return p!;
}

describe('migrate compares a policy no test checks on the example objects of its folder', () => {
  it.each(['map', 'kyverno-mpol'])('a Gatekeeper mutator with samples/<case>/example.yaml (--to %s) is proven when both agree', async (to) => {
    const { report } = await migrate({ 'lib/samples/mutation.yaml': RUN_AS_NON_ROOT, 'lib/samples/case/example.yaml': pod('web'), 'lib/samples/set/example.yaml': pod('set', SET_ALREADY) }, to);
    const p = only(report);
    expect(p.status).toBe('proven');
    expect(p.rows).toEqual([
      expect.objectContaining({ sample: true, entry: 0, resource: 'Pod/default/web', original: expect.objectContaining({ status: 'passed', reason: 'changed the object' }), migrated: expect.objectContaining({ status: 'passed' }) }),
      expect.objectContaining({ sample: true, resource: 'Pod/default/set', original: expect.objectContaining({ reason: 'left the object unchanged' }), migrated: expect.objectContaining({ status: 'passed' }) }),
    ]);
    expect(p.rows[0]!.suite).toMatch(/lib\/samples\/case\/example\.yaml$/);
  });

  it('says in the text report that example objects proved it', async () => {
    const { stdout } = await migrate({ 'lib/samples/mutation.yaml': RUN_AS_NON_ROOT, 'lib/samples/case/example.yaml': pod('web') }, 'map', true);
    expect(stdout).toMatch(/^migrated and proven +.*Assign run-as-non-root -> MutatingAdmissionPolicy .* \(1 example object\)$/m);
  });

  it('examples the source leaves unchanged prove nothing: the policy stays untested', async () => {
    const { report } = await migrate({ 'lib/mutation.yaml': RUN_AS_NON_ROOT, 'lib/example.yaml': pod('set', SET_ALREADY) });
    expect(only(report)).toMatchObject({ status: 'untested', rows: [] });
  });

  it('an example kube-apiserver would not decode as its kind is not run, and says why', async () => {
    const { report } = await migrate({ 'lib/mutation.yaml': RUN_AS_NON_ROOT, 'lib/example.yaml': `${pod('web')}---\n${pod('odd')}  colour: blue\n` });
    const p = only(report);
    expect(p.status).toBe('proven');
    expect(p.rows[1]).toMatchObject({ sample: true, entry: 1, resource: 'Pod/default/odd', notRun: expect.stringMatching(/^not a Pod kube-apiserver decodes: unknown field "spec\.colour"$/) });
  });

  it('objects only outside the policy file\'s folder are not its examples', async () => {
    const { report } = await migrate({ 'lib/policies/mutation.yaml': RUN_AS_NON_ROOT, 'lib/examples/example.yaml': pod('web') });
    expect(only(report)).toMatchObject({ status: 'untested', rows: [] });
  });

  it('a source that reads the cluster cannot admit the examples offline: not run, untested', async () => {
    const { report } = await migrate({ 'lib/policy.yaml': ZONE_LABEL_POLICY, 'lib/pod.yaml': pod('web') }, 'kyverno-mpol');
    const p = report.policies.find((x) => x.source.name === 'zone-label')!;
    expect(p).toMatchObject({ status: 'untested', rows: [] });
  });

  it('an example of a custom kind whose CRD the library lacks is not run for MAP: kube-apiserver would type it with the CRD', async () => {
    const { report } = await migrate({ 'lib/policy.yaml': WIDGET_SIZE, 'lib/widget.yaml': WIDGET }, 'map');
    const p = report.policies.find((x) => x.source.name === 'widget-size')!;
    expect(p.status).toBe('untested');
    expect(p.rows).toEqual([
      expect.objectContaining({ sample: true, resource: 'Widget/default/w', notRun: "no schema for example.com/v1 Widget: kube-apiserver types it with its CustomResourceDefinition's schema, which the library does not hold" }),
    ]);
  });

  it('a custom kind is typed with the CustomResourceDefinition the library holds, and proven', async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              colour: {type: string}
              size: {type: string}
`;
    for (const to of ['map', 'kyverno-mpol']) {
      const { report } = await migrate({ 'lib/policy.yaml': WIDGET_SIZE, 'lib/widget.yaml': WIDGET, 'lib/crds/widget.yaml': crd }, to);
      const p = report.policies.find((x) => x.source.name === 'widget-size')!;
      expect(p.status, to).toBe('proven');
      expect(p.rows, to).toEqual([expect.objectContaining({ sample: true, resource: 'Widget/default/w', original: expect.objectContaining({ reason: 'changed the object' }), migrated: expect.objectContaining({ status: 'passed' }) })]);
    }
  });

  it('a migration that leaves another object is a difference, with the first place they differ', () => {
    const root = tempDir('migrate-samples-diff', { 'lib/mutation.yaml': RUN_AS_NON_ROOT, 'lib/example.yaml': pod('web') });
    const found = discover(join(root, 'lib'));
    if ('error' in found) throw new Error(found.error.message);
    const outcomes = translateLibrary(found.library, 'map');
    const key = found.library.policies[0]!.key;
    const outcome = outcomes.get(key) as Extract<Outcome, { status: 'translated' }>;
    expect(outcome.status).toBe('translated');
    // The migration made wrong on purpose: it sets false where the mutator sets true.
    const wrong = JSON.parse(JSON.stringify(outcome.documents).replace(/(value|runAsNonRoot\\"): true/g, '$1: false'));
    expect(JSON.stringify(wrong)).not.toContain(': true');
    const broken = new Map(outcomes).set(key, { ...outcome, documents: wrong });
    const rows = proveBySamples(found.library, broken, new Map(), join(root, 'out')).get(key)!;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      sample: true,
      original: { status: 'passed', reason: 'changed the object' },
      migrated: { status: 'failed', reason: 'a different object than the source\'s: at /spec/containers/0/securityContext/runAsNonRoot: expected true, got false' },
    });
  });
});
