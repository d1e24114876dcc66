/**
 * Gatekeeper's expansion system tests (pkg/expansion/system_test.go), transcribed: TestExpand (the table of
 * generators, templates and mutators with the resultants they must give), TestValidateTemplate and
 * TestExpandResource. Each `it` carries the upstream case's name.
 */
import { describe, expect, it } from 'vitest';
import { parseGatekeeper } from '../../src/dialects/gatekeeper/parse.js';
import { interpreterMutator } from '../../src/dialects/gatekeeper/expansion/mutate.js';
import { expandResource } from '../../src/dialects/gatekeeper/expansion/resultant.js';
import { ExpansionSystem, type Resultant } from '../../src/dialects/gatekeeper/expansion/system.js';
import type { ExpansionTemplate } from '../../src/dialects/gatekeeper/expansion/template.js';
import { validateTemplate } from '../../src/dialects/gatekeeper/expansion/validate.js';
import type { JsonObject } from '../../src/ir/json.js';
import * as fx from './fixtures.js';

const ns = (name: string): JsonObject => ({ metadata: { name } });

interface ExpandCase {
  name: string;
  generator: JsonObject;
  ns?: JsonObject | null;
  operation?: string;
  templates?: ExpansionTemplate[];
  mutators?: JsonObject[];
  want?: { object: JsonObject; enforcementAction: string; templateName: string }[];
  expectErr?: boolean;
}

/** compareResults' order: name + apiVersion, descending. */
function sorted<T extends { object: JsonObject }>(rs: readonly T[]): T[] {
  const key = (o: JsonObject) => String((o.metadata as JsonObject | undefined)?.name ?? '') + String(o.apiVersion ?? '');
  return [...rs].sort((a, b) => (key(a.object) < key(b.object) ? 1 : key(a.object) > key(b.object) ? -1 : 0));
}

// TestExpand
const EXPAND_CASES: ExpandCase[] = [
  { name: 'generator with no templates or mutators', generator: fx.generatorCat() },
  { name: 'generator with no gvk returns error', generator: fx.deploymentNginx({ noGvk: true }), expectErr: true },
  { name: 'generator with non-matching template', generator: fx.generatorCat(), templates: [fx.expandDeployments()], want: [] },
  {
    name: 'no mutators basic deployment expands pod',
    generator: fx.deploymentNginx(),
    ns: ns('default'),
    templates: [fx.expandDeployments()],
    want: [{ object: fx.nginxPod(), enforcementAction: '', templateName: 'expand-deployments' }],
  },
  {
    name: 'deployment expands pod with enforcement action override',
    generator: fx.deploymentNginx(),
    ns: ns('default'),
    templates: [fx.expandDeployments('dryrun')],
    want: [{ object: fx.nginxPod(), enforcementAction: 'dryrun', templateName: 'expand-deployments' }],
  },
  {
    name: '1 mutator basic deployment expands pod',
    generator: fx.deploymentNginx(),
    ns: ns('default'),
    mutators: [fx.assignPullImage()],
    templates: [fx.expandDeployments()],
    want: [{ object: fx.nginxPod({ pullAlways: true }), enforcementAction: '', templateName: 'expand-deployments' }],
  },
  {
    name: 'operation-scoped mutator ignores generator operation during expansion',
    generator: fx.deploymentNginx(),
    ns: ns('default'),
    operation: 'CREATE',
    mutators: [fx.assignPullImage(['CREATE'])],
    templates: [fx.expandDeployments()],
    want: [{ object: fx.nginxPod(), enforcementAction: '', templateName: 'expand-deployments' }],
  },
  {
    name: 'mutator scoped to all supported operations expands pod and mutates without operation context',
    generator: fx.deploymentNginx(),
    ns: ns('default'),
    mutators: [fx.assignPullImage(['CREATE', 'UPDATE'])],
    templates: [fx.expandDeployments()],
    want: [{ object: fx.nginxPod({ pullAlways: true }), enforcementAction: '', templateName: 'expand-deployments' }],
  },
  {
    name: 'operation-scoped mutator without operation expands pod but does not mutate',
    generator: fx.deploymentNginx(),
    ns: ns('default'),
    mutators: [fx.assignPullImage(['CREATE'])],
    templates: [fx.expandDeployments()],
    want: [{ object: fx.nginxPod(), enforcementAction: '', templateName: 'expand-deployments' }],
  },
  {
    name: 'expand with nil namespace returns error bc the namespace selector errs out',
    generator: fx.deploymentNginx({ namespace: 'not-default' }),
    ns: null,
    mutators: [fx.assignPullImageWithNsSelector()],
    templates: [fx.expandDeployments()],
    expectErr: true,
  },
  {
    name: 'expand with nil namespace does not error out if no namespace selectors',
    generator: fx.deploymentNginx({ namespace: 'not-default' }),
    ns: ns('not-default'),
    mutators: [fx.assignPullImage()],
    templates: [fx.expandDeployments()],
    want: [{ object: fx.nginxPod({ namespace: 'not-default', pullAlways: true }), enforcementAction: '', templateName: 'expand-deployments' }],
  },
  {
    name: '1 mutator source All deployment expands pod and mutates',
    generator: fx.deploymentNginx(),
    ns: ns('default'),
    mutators: [fx.assignPullImageSourceAll()],
    templates: [fx.expandDeployments()],
    want: [{ object: fx.nginxPod({ pullAlways: true }), enforcementAction: '', templateName: 'expand-deployments' }],
  },
  {
    name: '1 mutator source empty deployment expands pod and mutates',
    generator: fx.deploymentNginx(),
    ns: ns('default'),
    mutators: [fx.assignPullImageSourceEmpty()],
    templates: [fx.expandDeployments()],
    want: [{ object: fx.nginxPod({ pullAlways: true }), enforcementAction: '', templateName: 'expand-deployments' }],
  },
  {
    name: '1 mutator source Original deployment expands pod but does not mutate',
    generator: fx.deploymentNginx(),
    ns: ns('default'),
    mutators: [fx.assignHostnameSourceOriginal()],
    templates: [fx.expandDeployments()],
    want: [{ object: fx.nginxPod(), enforcementAction: '', templateName: 'expand-deployments' }],
  },
  {
    name: '2 mutators, only 1 match, basic deployment expands pod',
    generator: fx.deploymentNginx(),
    ns: ns('default'),
    mutators: [fx.assignPullImage(), fx.annotateKitten()],
    templates: [fx.expandDeployments()],
    want: [{ object: fx.nginxPod({ pullAlways: true }), enforcementAction: '', templateName: 'expand-deployments' }],
  },
  {
    name: '2 mutators, 2 matches, basic deployment expands pod',
    generator: fx.deploymentNginx(),
    ns: ns('default'),
    mutators: [fx.assignPullImage(), fx.annotatePod()],
    templates: [fx.expandDeployments()],
    want: [{ object: fx.nginxPod({ pullAlways: true, annotations: { owner: 'admin' } }), enforcementAction: '', templateName: 'expand-deployments' }],
  },
  {
    name: 'custom CR with 2 different resultant kinds, with mutators',
    generator: fx.generatorCat(),
    ns: ns('default'),
    mutators: [fx.assignKittenAge(), fx.annotatePurr(), fx.annotateKitten()],
    templates: [fx.catToKitten(), fx.catToPurr()],
    want: [
      { object: fx.resultantKitten(), enforcementAction: 'dryrun', templateName: 'expand-cats-kitten' },
      { object: fx.resultantPurr(), enforcementAction: 'warn', templateName: 'expand-cats-purr' },
    ],
  },
  {
    name: 'custom CR with 2 different resultant kinds, with mutators and non-matching configs',
    generator: fx.generatorCat(),
    ns: ns('default'),
    mutators: [fx.assignKittenAge(), fx.annotatePurr(), fx.annotateKitten(), fx.assignPullImage()],
    templates: [fx.catToKitten(), fx.catToPurr(), fx.expandDeployments()],
    want: [
      { object: fx.resultantKitten(), enforcementAction: 'dryrun', templateName: 'expand-cats-kitten' },
      { object: fx.resultantPurr(), enforcementAction: 'warn', templateName: 'expand-cats-purr' },
    ],
  },
  {
    name: '1 mutator deployment expands pod with AssignImage',
    generator: fx.deploymentNginx(),
    ns: ns('default'),
    mutators: [fx.assignImageTag()],
    templates: [fx.expandDeployments()],
    want: [{ object: fx.nginxPod({ image: 'nginx:v2' }), enforcementAction: '', templateName: 'expand-deployments' }],
  },
  {
    name: 'recursive expansion with mutators',
    generator: fx.generatorCronJob(),
    ns: ns('default'),
    mutators: [fx.annotatePod()],
    templates: [fx.expandCronJobs(), fx.expandJobs()],
    want: [
      { object: fx.resultantJob(), enforcementAction: '', templateName: 'expand-cronjobs' },
      { object: fx.resultantRecursivePod(), enforcementAction: '', templateName: 'expand-jobs' },
    ],
  },
];

describe('TestExpand (pkg/expansion/system_test.go)', () => {
  for (const tc of EXPAND_CASES) {
    it(tc.name, () => {
      const parsed = parseGatekeeper(fx.docsOf(tc.mutators ?? []));
      expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const system = new ExpansionSystem(interpreterMutator({ gatekeeper: parsed.policies, admission: [] }));
      for (const t of tc.templates ?? []) expect(system.upsertTemplate(t)).toBeNull();
      const result = system.expand({
        object: tc.generator,
        namespace: tc.ns ?? null,
        username: 'unit-test',
        source: 'Generated',
        ...(tc.operation ? { operation: tc.operation } : {}),
      });
      if (tc.expectErr) {
        expect(result.ok).toBe(false);
        return;
      }
      if (!result.ok) throw new Error(`unexpected error: ${result.error}`);
      const got: Resultant[] = sorted(result.value);
      expect(got).toEqual(sorted(tc.want ?? []));
    });
  }
});

describe('TestValidateTemplate (pkg/expansion/system_test.go)', () => {
  const deploymentsToPods = { applyTo: [{ groups: ['apps'], kinds: ['Deployment'], versions: ['v1'] }], generatedGVK: { group: '', version: '', kind: 'Pod' } };
  deploymentsToPods.generatedGVK.version = 'v1';
  const cases: { name: string; temp: ExpansionTemplate; err?: string }[] = [
    { name: 'valid expansion template', temp: fx.testTemplate('foo', 1, 2) },
    { name: 'missing name', temp: fx.newTemplate({ ...deploymentsToPods, templateSource: 'spec.template' }), err: 'empty name' },
    { name: 'name too long', temp: fx.newTemplate({ ...deploymentsToPods, name: 'a'.repeat(65), templateSource: 'spec.template' }), err: 'less than 64' },
    { name: 'missing source', temp: fx.newTemplate({ ...deploymentsToPods, name: 'test1' }), err: 'empty source' },
    { name: 'missing generated GVK', temp: fx.newTemplate({ name: 'test1', applyTo: deploymentsToPods.applyTo, templateSource: 'spec.template' }), err: 'empty generatedGVK' },
    { name: 'missing applyTo', temp: fx.newTemplate({ name: 'test1', templateSource: 'spec.template', generatedGVK: deploymentsToPods.generatedGVK }), err: 'specify ApplyTo' },
    {
      name: 'loop',
      temp: fx.newTemplate({ name: 'test1', applyTo: [{ groups: [''], kinds: ['Pod'], versions: ['v1'] }], templateSource: 'spec.template', generatedGVK: deploymentsToPods.generatedGVK }),
      err: 'also applies to that same GVK',
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const problem = validateTemplate(tc.temp);
      if (tc.err === undefined) expect(problem).toBeNull();
      else expect(problem?.message).toContain(tc.err);
    });
  }
});

describe('TestExpandResource (pkg/expansion/system_test.go)', () => {
  const toPod = (templateSource: string, generatedGVK = { group: '', version: 'v1', kind: 'Pod' }) => fx.newTemplate({ name: 'test-template', templateSource, generatedGVK });
  const cases: { name: string; obj: JsonObject; ns: JsonObject | null; template: ExpansionTemplate; want?: JsonObject; errSubstr?: string }[] = [
    { name: 'successful expansion with namespace', obj: fx.deploymentNginx(), ns: ns('default'), template: toPod('spec.template'), want: fx.nginxPod() },
    { name: 'successful expansion without namespace', obj: fx.deploymentNginx({ namespace: 'not-default' }), ns: null, template: toPod('spec.template'), want: fx.nginxPod({ namespace: 'not-default' }) },
    { name: 'empty template source', obj: fx.deploymentNginx(), ns: ns('default'), template: toPod(''), errSubstr: 'cannot expand resource using a template with no source' },
    {
      name: 'empty generated GVK',
      obj: fx.deploymentNginx(),
      ns: ns('default'),
      template: toPod('spec.template', { group: '', version: '', kind: '' }),
      errSubstr: 'cannot expand resource using template with empty generatedGVK',
    },
    { name: 'source field not found', obj: fx.deploymentNginx(), ns: ns('default'), template: toPod('spec.nonexistent'), errSubstr: 'could not find source field' },
    {
      name: 'invalid source path',
      obj: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'test-deployment', namespace: 'default' }, spec: 'invalid-not-a-map' },
      ns: ns('default'),
      template: toPod('spec.template'),
      errSubstr: 'could not extract source field from unstructured',
    },
    {
      name: 'cluster scoped resource without namespace',
      obj: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'test-deployment' },
        spec: { template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.14.2' }] } } },
      },
      ns: null,
      template: toPod('spec.template'),
      want: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'test-deployment-pod', labels: { app: 'nginx' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'test-deployment', uid: '' }] },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.14.2' }] },
      },
    },
    {
      name: 'error extracting namespace from parent resource',
      obj: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'test-deployment', namespace: 123 }, spec: { template: { metadata: { labels: { app: 'nginx' } } } } },
      ns: null,
      template: toPod('spec.template'),
      errSubstr: 'could not extract namespace field',
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const r = expandResource(tc.obj, tc.ns, tc.template);
      if (tc.errSubstr !== undefined) {
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error).toContain(tc.errSubstr);
        return;
      }
      if (!r.ok) throw new Error(`unexpected error: ${r.error}`);
      expect(r.value).toEqual(tc.want);
    });
  }

  it('leaves the generator untouched (the source is deep-copied, as NestedMap copies)', () => {
    const obj = fx.deploymentNginx();
    const before = JSON.stringify(obj);
    const r = expandResource(obj, ns('default'), toPod('spec.template'));
    expect(r.ok).toBe(true);
    expect(JSON.stringify(obj)).toBe(before);
  });
});
