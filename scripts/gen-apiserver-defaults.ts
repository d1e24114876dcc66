/**
 * Generates src/k8s/defaults/table.json: for each built-in kind, the defaulting steps kube-apiserver runs on
 * it (the `SetObjectDefaults_<Kind>` functions defaulter-gen writes into zz_generated.defaults.go), as a flat
 * ordered list of `{ at: path, fn: defaulter }`; and src/k8s/defaults/table.generated.ts, which types it (the
 * union of the defaulter names). The steps are data, so they live in JSON rather than as code.
 *
 *   npx tsx scripts/gen-apiserver-defaults.ts
 *
 * Reading Go automatically was too costly, so the type graph below is transcribed by hand from kubernetes
 * v1.33: pkg/apis/core/v1, pkg/apis/apps/v1 and pkg/apis/batch/v1 (zz_generated.defaults.go for which
 * defaulters run on which members, and in which order; defaults.go for what each one does, implemented in
 * src/k8s/defaults/defaulters.ts). This script does what defaulter-gen does with it: it walks each kind's type
 * graph depth first, a type's own defaulters before its members', members in struct field order, and writes
 * the path of every call. test/k8s/defaults/defaults.test.ts fails when the files and this script disagree.
 *
 * Path segments: `name` is a struct member (Go calls the defaulter on the zero value when it is absent, so it
 * is created), `name?` a pointer or map member (skipped when absent), `*` every element of a list.
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A Go type: the SetDefaults_ functions defaulter-gen calls on it, then its members with defaulters inside. */
interface TypeSpec {
  defaulters?: string[];
  members?: [segment: string, type: string][];
}

/** The type graph, transcribed (see the header). Members with no defaulter anywhere below are left out. */
const TYPES: Record<string, TypeSpec> = {
  // core/v1
  Pod: { defaulters: ['Pod'], members: [['spec', 'PodSpec']] },
  PodSpec: {
    defaulters: ['PodSpec'],
    members: [
      ['volumes?', 'Volume[]'],
      ['initContainers?', 'Container[]'],
      ['containers?', 'Container[]'],
      ['ephemeralContainers?', 'Container[]'],
    ],
  },
  PodTemplateSpec: { members: [['spec', 'PodSpec']] },
  Volume: {
    defaulters: ['Volume'],
    members: [
      ['hostPath?', 'HostPathVolumeSource'],
      ['secret?', 'SecretVolumeSource'],
      ['iscsi?', 'ISCSIVolumeSource'],
      ['rbd?', 'RBDVolumeSource'],
      ['downwardAPI?', 'DownwardAPIVolumeSource'],
      ['configMap?', 'ConfigMapVolumeSource'],
      ['azureDisk?', 'AzureDiskVolumeSource'],
      ['projected?', 'ProjectedVolumeSource'],
      ['scaleIO?', 'ScaleIOVolumeSource'],
      ['ephemeral?', 'EphemeralVolumeSource'],
    ],
  },
  HostPathVolumeSource: { defaulters: ['HostPathVolumeSource'] },
  SecretVolumeSource: { defaulters: ['SecretVolumeSource'] },
  ISCSIVolumeSource: { defaulters: ['ISCSIVolumeSource'] },
  RBDVolumeSource: { defaulters: ['RBDVolumeSource'] },
  ConfigMapVolumeSource: { defaulters: ['ConfigMapVolumeSource'] },
  AzureDiskVolumeSource: { defaulters: ['AzureDiskVolumeSource'] },
  ScaleIOVolumeSource: { defaulters: ['ScaleIOVolumeSource'] },
  DownwardAPIVolumeSource: { defaulters: ['DownwardAPIVolumeSource'], members: [['items?', 'DownwardAPIVolumeFile[]']] },
  DownwardAPIVolumeFile: { members: [['fieldRef?', 'ObjectFieldSelector']] },
  DownwardAPIProjection: { members: [['items?', 'DownwardAPIVolumeFile[]']] },
  ObjectFieldSelector: { defaulters: ['ObjectFieldSelector'] },
  ProjectedVolumeSource: { defaulters: ['ProjectedVolumeSource'], members: [['sources?', 'VolumeProjection[]']] },
  VolumeProjection: {
    members: [
      ['downwardAPI?', 'DownwardAPIProjection'],
      ['serviceAccountToken?', 'ServiceAccountTokenProjection'],
    ],
  },
  ServiceAccountTokenProjection: { defaulters: ['ServiceAccountTokenProjection'] },
  EphemeralVolumeSource: { members: [['volumeClaimTemplate?', 'PersistentVolumeClaimTemplate']] },
  PersistentVolumeClaimTemplate: { members: [['spec', 'PersistentVolumeClaimSpec']] },
  PersistentVolumeClaim: { defaulters: ['PersistentVolumeClaim'], members: [['spec', 'PersistentVolumeClaimSpec']] },
  PersistentVolumeClaimSpec: { defaulters: ['PersistentVolumeClaimSpec'] },
  // Container and EphemeralContainer (SetDefaults_EphemeralContainer is SetDefaults_Container).
  Container: {
    defaulters: ['Container'],
    members: [
      ['ports?', 'ContainerPort[]'],
      ['env?', 'EnvVar[]'],
      ['livenessProbe?', 'Probe'],
      ['readinessProbe?', 'Probe'],
      ['startupProbe?', 'Probe'],
      ['lifecycle?', 'Lifecycle'],
    ],
  },
  // `+default="TCP"` on ContainerPort.Protocol (a declarative default, inlined by defaulter-gen).
  ContainerPort: { defaulters: ['ContainerPort'] },
  EnvVar: { members: [['valueFrom?', 'EnvVarSource']] },
  EnvVarSource: { members: [['fieldRef?', 'ObjectFieldSelector']] },
  Probe: {
    defaulters: ['Probe'],
    members: [
      ['httpGet?', 'HTTPGetAction'],
      ['grpc?', 'GRPCAction'],
    ],
  },
  // `+default=""` on GRPCAction.Service.
  GRPCAction: { defaulters: ['GRPCAction'] },
  Lifecycle: {
    members: [
      ['postStart?', 'LifecycleHandler'],
      ['preStop?', 'LifecycleHandler'],
    ],
  },
  LifecycleHandler: { members: [['httpGet?', 'HTTPGetAction']] },
  HTTPGetAction: { defaulters: ['HTTPGetAction'] },
  Service: { defaulters: ['Service'] },
  Namespace: { defaulters: ['Namespace'], members: [['status', 'NamespaceStatus']] },
  NamespaceStatus: { defaulters: ['NamespaceStatus'] },
  Secret: { defaulters: ['Secret'] },
  PodTemplate: { members: [['template', 'PodTemplateSpec']] },
  ReplicationController: { defaulters: ['ReplicationController'], members: [['spec', 'ReplicationControllerSpec']] },
  // `+default=1` on ReplicationControllerSpec.Replicas.
  ReplicationControllerSpec: { defaulters: ['ReplicasOne'], members: [['template?', 'PodTemplateSpec']] },
  // apps/v1
  Deployment: { defaulters: ['Deployment'], members: [['spec', 'WorkloadSpec']] },
  StatefulSet: { defaulters: ['StatefulSet'], members: [['spec', 'StatefulSetSpec']] },
  StatefulSetSpec: {
    members: [
      ['template', 'PodTemplateSpec'],
      ['volumeClaimTemplates?', 'PersistentVolumeClaim[]'],
    ],
  },
  DaemonSet: { defaulters: ['DaemonSet'], members: [['spec', 'WorkloadSpec']] },
  ReplicaSet: { defaulters: ['ReplicaSet'], members: [['spec', 'WorkloadSpec']] },
  WorkloadSpec: { members: [['template', 'PodTemplateSpec']] },
  // batch/v1
  Job: { defaulters: ['Job'], members: [['spec', 'WorkloadSpec']] },
  CronJob: { defaulters: ['CronJob'], members: [['spec', 'CronJobSpec']] },
  CronJobSpec: { members: [['jobTemplate', 'JobTemplateSpec']] },
  JobTemplateSpec: { members: [['spec', 'WorkloadSpec']] },
};

/** The kinds defaulted, by "group/version/Kind" (core group empty), and their root type. */
const KINDS: Record<string, string> = {
  '/v1/Pod': 'Pod',
  '/v1/PodTemplate': 'PodTemplate',
  '/v1/ReplicationController': 'ReplicationController',
  '/v1/Service': 'Service',
  '/v1/Namespace': 'Namespace',
  '/v1/Secret': 'Secret',
  '/v1/PersistentVolumeClaim': 'PersistentVolumeClaim',
  'apps/v1/Deployment': 'Deployment',
  'apps/v1/StatefulSet': 'StatefulSet',
  'apps/v1/DaemonSet': 'DaemonSet',
  'apps/v1/ReplicaSet': 'ReplicaSet',
  'batch/v1/Job': 'Job',
  'batch/v1/CronJob': 'CronJob',
};

export interface GeneratedStep {
  at: string[];
  fn: string;
}

/** Every defaulter call of a type, depth first, as defaulter-gen orders them. */
function steps(type: string, at: string[], out: GeneratedStep[]): void {
  const spec = TYPES[type];
  if (!spec) throw new Error(`no type ${type} in the transcribed graph`);
  for (const fn of spec.defaulters ?? []) out.push({ at, fn });
  for (const [segment, member] of spec.members ?? []) {
    const list = member.endsWith('[]');
    steps(list ? member.slice(0, -2) : member, list ? [...at, segment, '*'] : [...at, segment], out);
  }
}

export function generateTable(): Record<string, GeneratedStep[]> {
  const table: Record<string, GeneratedStep[]> = {};
  for (const [gvk, root] of Object.entries(KINDS)) {
    const out: GeneratedStep[] = [];
    steps(root, [], out);
    table[gvk] = out;
  }
  return table;
}

/** The generated module's text: the types of the data file, and the data typed. */
export function renderTable(): string {
  const table = generateTable();
  const names = [...new Set(Object.values(table).flatMap((s) => s.map((x) => x.fn)))].sort();
  const lines = [
    '// Generated by scripts/gen-apiserver-defaults.ts from its transcription of kubernetes v1.33',
    '// zz_generated.defaults.go (core/v1, apps/v1, batch/v1). Do not edit; re-run the script.',
    '',
    "import steps from './table.json' with { type: 'json' };",
    '',
    '/** The defaulter functions the table calls (src/k8s/defaults/defaulters.ts implements each). */',
    `export type DefaulterName = ${names.map((n) => `'${n}'`).join(' | ')};`,
    '',
    '/** One defaulter call: `at` a path (`name` struct member, `name?` pointer, `*` each list element). */',
    'export interface DefaultingStep {',
    '  readonly at: readonly string[];',
    '  readonly fn: DefaulterName;',
    '}',
    '',
    '/** Per "group/version/Kind": the calls of SetObjectDefaults_<Kind>, in order (every `fn` is a DefaulterName). */',
    'export const DEFAULTING_STEPS = steps as Readonly<Record<string, readonly DefaultingStep[]>>;',
    '',
  ];
  return lines.join('\n');
}

/** The data file's text: one step a line, so that a change to the transcription reads as a small diff. */
export function renderData(): string {
  const kinds = Object.entries(generateTable()).map(([gvk, list]) => {
    const steps = list.map((s) => `    ${JSON.stringify({ at: s.at, fn: s.fn })}`);
    return `  ${JSON.stringify(gvk)}: [\n${steps.join(',\n')}\n  ]`;
  });
  return `{\n${kinds.join(',\n')}\n}\n`;
}

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const TABLE_PATH = resolve(repo, 'src/k8s/defaults/table.generated.ts');
export const DATA_PATH = resolve(repo, 'src/k8s/defaults/table.json');

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(DATA_PATH, renderData());
  writeFileSync(TABLE_PATH, renderTable());
  process.stdout.write(`wrote ${DATA_PATH} and ${TABLE_PATH}\n`);
}
