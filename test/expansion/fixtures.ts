/**
 * My transcription of the objects Gatekeeper's expansion tests use (pkg/expansion/fixtures/fixtures.go and
 * load.go), rebuilt with small builders instead of the upstream YAML: the nginx Deployment and the Pods it
 * expands into, the Cat custom resource with its Kitten and Purr, the CronJob → Job → Pod chain, the templates,
 * and the mutators as documents the Gatekeeper dialect reads. Each builder names the upstream constant it
 * stands for.
 */
import type { ExpansionTemplate, TemplateApplyTo } from '../../src/dialects/gatekeeper/expansion/template.js';
import type { JsonObject } from '../../src/ir/json.js';
import type { SourceDoc } from '../../src/io/source.js';
import { loadYamlText } from '../../src/io/yaml-load.js';

// ---------------------------------------------------------------------------------------------- templates

/** fixtures.NewTemplate: the given fields, the rest empty. */
export function newTemplate(data: Partial<ExpansionTemplate>): ExpansionTemplate {
  return {
    name: data.name ?? '',
    applyTo: data.applyTo ?? [],
    templateSource: data.templateSource ?? '',
    generatedGVK: data.generatedGVK ?? { group: '', version: '', kind: '' },
    enforcementAction: data.enforcementAction ?? '',
  };
}

const gvk = (group: string, version: string, kind: string) => ({ group, version, kind });
const applyTo = (groups: string[], versions: string[], kinds: string[]): TemplateApplyTo => ({ groups, versions, kinds });

/** TempExpDeploymentExpandsPods (and, with `dryrun`, TempExpDeploymentExpandsPodsEnforceDryrun). */
export const expandDeployments = (enforcementAction = '') =>
  newTemplate({ name: 'expand-deployments', applyTo: [applyTo(['apps'], ['v1'], ['Deployment'])], templateSource: 'spec.template', generatedGVK: gvk('', 'v1', 'Pod'), enforcementAction });
/** TempExpCronJob: CronJobs expand into Jobs from spec.jobTemplate. */
export const expandCronJobs = () =>
  newTemplate({ name: 'expand-cronjobs', applyTo: [applyTo(['batch'], ['v1'], ['CronJob'])], templateSource: 'spec.jobTemplate', generatedGVK: gvk('batch', 'v1', 'Job') });
/** TempExpJob: Jobs expand into Pods. */
export const expandJobs = () =>
  newTemplate({ name: 'expand-jobs', applyTo: [applyTo(['batch'], ['v1'], ['Job'])], templateSource: 'spec.template', generatedGVK: gvk('', 'v1', 'Pod') });
/** TemplateCatExpandsKitten. */
export const catToKitten = () =>
  newTemplate({ name: 'expand-cats-kitten', applyTo: [applyTo(['cat.myapp.sh'], ['v1alpha1'], ['Cat'])], templateSource: 'spec.catStuff', generatedGVK: gvk('kitten.myapp.sh', 'v1alpha1', 'Kitten'), enforcementAction: 'dryrun' });
/** TemplateCatExpandsPurr. */
export const catToPurr = () =>
  newTemplate({ name: 'expand-cats-purr', applyTo: [applyTo(['cat.myapp.sh'], ['v1alpha1'], ['Cat'])], templateSource: 'spec.purrStuff', generatedGVK: gvk('purr.myapp.sh', 'v1alpha1', 'Purr'), enforcementAction: 'warn' });

/** fixtures.TestTemplate: applies to group<a>/v<a>/kind<a>, generates group<g>/v<g>/kind<g>. */
export function testTemplate(name: string, applyId: number, genId: number): ExpansionTemplate {
  return newTemplate({
    name,
    applyTo: [applyTo([`group${applyId}`], [`v${applyId}`], [`kind${applyId}`])],
    templateSource: 'spec.template',
    generatedGVK: gvk(`group${genId}`, `v${genId}`, `kind${genId}`),
  });
}

/** fixtures.TempMultApply: two applyTo entries, the second with two versions. */
export function tempMultApply(): ExpansionTemplate {
  return newTemplate({
    name: 't2',
    applyTo: [applyTo(['group1'], ['v1'], ['kind1']), applyTo(['group11'], ['v11', 'v22'], ['kind11'])],
    templateSource: 'spec.template',
    generatedGVK: gvk('group2', 'v2', 'kind2'),
  });
}

// ---------------------------------------------------------------------------------------------- generators

/** The Pod template of the nginx Deployment (note the quoted containerPort of the upstream fixture). */
function nginxPodSpec(extra: JsonObject = {}): JsonObject {
  return { containers: [{ name: 'nginx', image: 'nginx:1.14.2', ...extra, ports: [{ containerPort: '80' }], args: ['/bin/sh'] }] };
}

/** DeploymentNginx, DeploymentNginxWithNs (namespace `not-default`) and DeploymentNoGVK. */
export function deploymentNginx(opts: { namespace?: string; noGvk?: boolean } = {}): JsonObject {
  const metadata: JsonObject = { name: 'nginx-deployment', labels: { app: 'nginx' } };
  if (opts.namespace) metadata.namespace = opts.namespace;
  const body: JsonObject = {
    metadata,
    spec: { replicas: 3, selector: { matchLabels: { app: 'nginx' } }, template: { metadata: { labels: { app: 'nginx' } }, spec: nginxPodSpec() } },
  };
  return opts.noGvk ? body : { apiVersion: 'apps/v1', kind: 'Deployment', ...body };
}

const ownedBy = (apiVersion: string, kind: string, name: string) => [{ apiVersion, kind, name, uid: '' }];

/**
 * The Pod the nginx Deployment expands into: PodNoMutate, PodNoMutateWithNs, PodImagePullMutate(WithNs),
 * PodMutateImage, PodImagePullMutateAnnotated, by options.
 */
export function nginxPod(opts: { namespace?: string; pullAlways?: boolean; image?: string; annotations?: JsonObject } = {}): JsonObject {
  const metadata: JsonObject = { labels: { app: 'nginx' }, name: 'nginx-deployment-pod', namespace: opts.namespace ?? 'default', ownerReferences: ownedBy('apps/v1', 'Deployment', 'nginx-deployment') };
  if (opts.annotations) metadata.annotations = opts.annotations;
  const container: JsonObject = { args: ['/bin/sh'], image: opts.image ?? 'nginx:1.14.2', name: 'nginx', ports: [{ containerPort: '80' }] };
  if (opts.pullAlways) container.imagePullPolicy = 'Always';
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: { containers: [container] } };
}

/** GeneratorCat: a custom resource with two template sources. */
export function generatorCat(): JsonObject {
  return {
    apiVersion: 'cat.myapp.sh/v1alpha1',
    kind: 'Cat',
    metadata: { name: 'big-chungus' },
    spec: { catStuff: { metadata: { labels: { fluffy: 'extremely' } }, spec: { breed: 'calico', weight: 10 } }, purrStuff: { spec: { loud: 'very' } } },
  };
}

/** ResultantKitten. */
export function resultantKitten(): JsonObject {
  return {
    apiVersion: 'kitten.myapp.sh/v1alpha1',
    kind: 'Kitten',
    metadata: { annotations: { sound: 'meow' }, labels: { fluffy: 'extremely' }, name: 'big-chungus-kitten', namespace: 'default', ownerReferences: ownedBy('cat.myapp.sh/v1alpha1', 'Cat', 'big-chungus') },
    spec: { breed: 'calico', weight: 10, age: 10 },
  };
}

/** ResultantPurr. */
export function resultantPurr(): JsonObject {
  return {
    apiVersion: 'purr.myapp.sh/v1alpha1',
    kind: 'Purr',
    metadata: { annotations: { shouldPet: 'manytimes' }, name: 'big-chungus-purr', namespace: 'default', ownerReferences: ownedBy('cat.myapp.sh/v1alpha1', 'Cat', 'big-chungus') },
    spec: { loud: 'very' },
  };
}

const cronPodSpec = (): JsonObject => ({ containers: [{ args: ['/bin/sh'], image: 'nginx:1.14.2', imagePullPolicy: 'Always', name: 'nginx', ports: [{ containerPort: '80' }] }] });

/** GeneratorCronJob. */
export function generatorCronJob(): JsonObject {
  return { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'my-cronjob' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: cronPodSpec() } } } } };
}

/** ResultantJob: the CronJob's Job. */
export function resultantJob(): JsonObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'my-cronjob-job', namespace: 'default', ownerReferences: ownedBy('batch/v1', 'CronJob', 'my-cronjob') },
    spec: { template: { spec: cronPodSpec() } },
  };
}

/** ResultantRecursivePod: the Job's Pod, annotated by AssignMetaAnnotatePod. */
export function resultantRecursivePod(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { annotations: { owner: 'admin' }, name: 'my-cronjob-job-pod', namespace: 'default', ownerReferences: ownedBy('batch/v1', 'Job', 'my-cronjob-job') },
    spec: cronPodSpec(),
  };
}

// ---------------------------------------------------------------------------------------------- mutators

const anyKinds = { kinds: [{ apiGroups: [], kinds: [] }] };
const podApplyTo = (operations?: string[]) => [{ groups: [''], kinds: ['Pod'], versions: ['v1'], ...(operations ? { operations } : {}) }];

function assignPullPolicy(match: JsonObject, operations?: string[]): JsonObject {
  return {
    apiVersion: 'mutations.gatekeeper.sh/v1alpha1',
    kind: 'Assign',
    metadata: { name: 'always-pull-image' },
    spec: { applyTo: podApplyTo(operations), location: 'spec.containers[name: *].imagePullPolicy', parameters: { assign: { value: 'Always' } }, match },
  };
}

/** AssignPullImage (source Generated); with `operations`, loadAssignWithOperations of system_test.go. */
export const assignPullImage = (operations?: string[]) => assignPullPolicy({ source: 'Generated', scope: 'Namespaced', ...anyKinds }, operations);
/** AssignPullImageWithNsSelector. */
export const assignPullImageWithNsSelector = () =>
  assignPullPolicy({ source: 'Generated', scope: 'Namespaced', ...anyKinds, namespaceSelector: { matchExpressions: [{ key: 'admission.gatekeeper.sh/ignore', operator: 'DoesNotExist' }] } });
/** AssignPullImageSourceAll (whose source is in fact `Generated` upstream, kept as it is). */
export const assignPullImageSourceAll = () => assignPullPolicy({ source: 'Generated', scope: 'Namespaced', ...anyKinds });
/** AssignPullImageSourceEmpty: no source, which means All. */
export const assignPullImageSourceEmpty = () => assignPullPolicy({ scope: 'Namespaced', ...anyKinds });

/** AssignImage: tag `:v2` on the nginx container. */
export const assignImageTag = (): JsonObject => ({
  apiVersion: 'mutations.gatekeeper.sh/v1alpha1',
  kind: 'AssignImage',
  metadata: { name: 'tag-v2' },
  spec: { applyTo: podApplyTo(), location: 'spec.containers[name:nginx].image', parameters: { assignTag: ':v2' } },
});

/** AssignHostnameSourceOriginal: would set a hostname, but only on Original objects. */
export const assignHostnameSourceOriginal = (): JsonObject => ({
  apiVersion: 'mutations.gatekeeper.sh/v1alpha1',
  kind: 'Assign',
  metadata: { name: 'assign-hostname' },
  spec: { applyTo: podApplyTo(), location: 'spec.containers[name: *].hostname', parameters: { assign: { value: 'ThisShouldNotBeSet' } }, match: { source: 'Original', scope: 'Namespaced', ...anyKinds } },
});

function annotate(name: string, kind: string, key: string, value: string): JsonObject {
  return {
    apiVersion: 'mutations.gatekeeper.sh/v1beta1',
    kind: 'AssignMetadata',
    metadata: { name },
    spec: { match: { source: 'Generated', scope: 'Namespaced', kinds: [{ apiGroups: ['*'], kinds: [kind] }] }, location: `metadata.annotations.${key}`, parameters: { assign: { value } } },
  };
}

/** AssignMetaAnnotatePod, AssignMetaAnnotateKitten, AssignMetaAnnotatePurr. */
export const annotatePod = () => annotate('demo-annotation-owner', 'Pod', 'owner', 'admin');
export const annotateKitten = () => annotate('demo-annotation-meow', 'Kitten', 'sound', 'meow');
export const annotatePurr = () => annotate('annotate-purr', 'Purr', 'shouldPet', 'manytimes');

/** AssignKittenAge. */
export const assignKittenAge = (): JsonObject => ({
  apiVersion: 'mutations.gatekeeper.sh/v1alpha1',
  kind: 'Assign',
  metadata: { name: 'assign-kitten-age' },
  spec: {
    applyTo: [{ groups: ['kitten.myapp.sh'], kinds: ['Kitten'], versions: ['v1alpha1'] }],
    location: 'spec.age',
    parameters: { assign: { value: 10 } },
    match: { source: 'Generated', scope: 'Namespaced', ...anyKinds },
  },
});

/** Documents for the Gatekeeper dialect, one per object. */
export function docsOf(objects: readonly JsonObject[]): SourceDoc[] {
  return objects.flatMap((o, i) => {
    const r = loadYamlText(`fixture-${i}.yaml`, JSON.stringify(o, null, 2));
    if (!r.ok) throw new Error(`fixture ${i} does not load`);
    return r.value;
  });
}
