/**
 * kube-apiserver defaulting (issue 15 item 14): the generated table is what its generator writes, each common
 * kind gets the defaults a stored object shows, the default admission plugins change a Pod on CREATE,
 * MutatingAdmissionPolicy mutations are re-defaulted with a runtime that asks for it (and only then), and
 * `apply --apiserver-defaults` prints the object as `kubectl get` would. Expected values are transcribed
 * from kubernetes v1.33 defaults.go (core/v1, apps/v1, batch/v1).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DATA_PATH, renderData, renderTable, TABLE_PATH } from '../../../scripts/gen-apiserver-defaults.js';
import { admittedObject, applyApiServerDefaults, builtInAdmission, imageTag, storedObject } from '../../../src/k8s/defaults/index.js';
import { apply } from '../../../src/interpreter/index.js';
import { createRuntime } from '../../../src/runtime/create.js';
import { loadPolicies } from '../../../src/api/load.js';
import type { JsonObject } from '../../../src/ir/json.js';
import { run, tempFiles } from '../../cli/support.js';

const container = (extra: JsonObject = {}): JsonObject => ({ name: 'c', image: 'nginx:1.25', ...extra });
const pod = (spec: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec });
const at = (o: unknown, ...path: (string | number)[]): unknown => path.reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], o);

describe('the generated defaulting table', () => {
  it('is what scripts/gen-apiserver-defaults.ts writes', () => {
    expect(readFileSync(TABLE_PATH, 'utf8')).toBe(renderTable());
    expect(readFileSync(DATA_PATH, 'utf8')).toBe(renderData());
  });
});

describe('defaults of the common kinds', () => {
  it('Pod, its containers, probes, ports and volumes', () => {
    const out = applyApiServerDefaults(
      pod({
        containers: [container({ ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } }, readinessProbe: { httpGet: { port: 80 } }, env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] })],
        initContainers: [{ name: 'i', image: 'busybox' }],
        volumes: [{ name: 'bare' }, { name: 's', secret: { secretName: 's' } }, { name: 'h', hostPath: { path: '/x' } }, { name: 'd', downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } }],
      }),
    );
    expect(at(out, 'spec')).toMatchObject({ dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', securityContext: {}, terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler', enableServiceLinks: true });
    expect(at(out, 'spec', 'containers', 0)).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      resources: { limits: { cpu: '1' }, requests: { cpu: '1' } },
      readinessProbe: { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
      env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } } }],
    });
    expect(at(out, 'spec', 'initContainers', 0, 'imagePullPolicy')).toBe('Always');
    expect(at(out, 'spec', 'volumes')).toEqual([
      { name: 'bare', emptyDir: {} },
      { name: 's', secret: { secretName: 's', defaultMode: 420 } },
      { name: 'h', hostPath: { path: '/x', type: '' } },
      { name: 'd', downwardAPI: { defaultMode: 420, items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } }] } },
    ]);
  });

  it('image pull policy follows ParseImageName: latest or no tag is Always, a digest alone IfNotPresent', () => {
    expect(imageTag('nginx')).toBe('latest');
    expect(imageTag('nginx:latest')).toBe('latest');
    expect(imageTag('localhost:5000/app')).toBe('latest');
    expect(imageTag('nginx:1.21')).toBe('1.21');
    expect(imageTag('nginx@sha256:' + 'a'.repeat(64))).toBe('');
    expect(imageTag('NGINX')).toBe('');
  });

  it('workloads: Deployment, StatefulSet, DaemonSet, Job, CronJob, with their pod templates', () => {
    const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [container()] } };
    const deployment = applyApiServerDefaults({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template } });
    expect(at(deployment, 'spec')).toMatchObject({ replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } } });
    expect(at(deployment, 'spec', 'template', 'spec', 'dnsPolicy')).toBe('ClusterFirst');
    // SetDefaults_Pod is for Pods only: a template gets no enableServiceLinks.
    expect(at(deployment, 'spec', 'template', 'spec', 'enableServiceLinks')).toBeUndefined();
    const sts = applyApiServerDefaults({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 's' }, spec: { template, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }] } });
    expect(at(sts, 'spec')).toMatchObject({
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      replicas: 1,
      revisionHistoryLimit: 10,
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { volumeMode: 'Filesystem' }, status: { phase: 'Pending' } }],
    });
    const ds = applyApiServerDefaults({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'x' }, spec: { template } });
    expect(at(ds, 'spec')).toMatchObject({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, revisionHistoryLimit: 10 });
    const job = applyApiServerDefaults({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } } });
    expect(at(job, 'spec')).toMatchObject({ completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed' });
    expect(at(job, 'metadata', 'labels')).toEqual({ app: 'a' });
    expect(at(job, 'spec', 'template', 'spec', 'restartPolicy')).toBe('Never');
    const cron = applyApiServerDefaults({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template } } } });
    expect(at(cron, 'spec')).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    expect(at(cron, 'spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers', 0, 'imagePullPolicy')).toBe('IfNotPresent');
    // SetDefaults_Job does not run on a CronJob's job template.
    expect(at(cron, 'spec', 'jobTemplate', 'spec', 'backoffLimit')).toBeUndefined();
  });

  it('Service and Namespace', () => {
    const svc = applyApiServerDefaults({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } });
    expect(at(svc, 'spec')).toEqual({ ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], sessionAffinity: 'None', type: 'ClusterIP', internalTrafficPolicy: 'Cluster' });
    const lb = applyApiServerDefaults({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 80, targetPort: 'http' }] } });
    expect(at(lb, 'spec')).toMatchObject({ externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true, sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } }, ports: [{ targetPort: 'http' }] });
    const ns = applyApiServerDefaults({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    expect(ns).toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', labels: { 'kubernetes.io/metadata.name': 'team' } }, status: { phase: 'Active' } });
  });

  it('leaves custom resources, unknown kinds and already defaulted objects as they are (same identity)', () => {
    const cr = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} };
    expect(applyApiServerDefaults(cr)).toBe(cr);
    const once = applyApiServerDefaults(pod({ containers: [container()] }));
    expect(applyApiServerDefaults(once)).toBe(once);
  });
});

describe('default admission plugins on a Pod CREATE', () => {
  it('DefaultTolerationSeconds adds the not-ready and unreachable NoExecute tolerations for 300 s', () => {
    const out = builtInAdmission(pod({ containers: [container()], tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }] }), 'CREATE', 'abcde');
    expect(at(out, 'spec', 'tolerations')).toEqual([
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
  });

  it('ServiceAccount and Priority; nothing on UPDATE', () => {
    const out = builtInAdmission(pod({ containers: [container()] }), 'CREATE', 'abcde');
    expect(at(out, 'spec')).toMatchObject({ serviceAccountName: 'default', priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    expect(at(out, 'spec', 'volumes', 0, 'name')).toBe('kube-api-access-abcde');
    expect(at(builtInAdmission(pod({ priorityClassName: 'system-node-critical', containers: [container()] }), 'CREATE', 'x'), 'spec', 'priority')).toBe(2000001000);
    const given = pod({ containers: [container()] });
    expect(builtInAdmission(given, 'UPDATE')).toBe(given);
  });

  it('the token volume suffix is deterministic without being given', () => {
    const a = admittedObject(pod({ containers: [container()] }), 'CREATE');
    const b = admittedObject(pod({ containers: [container()] }), 'CREATE');
    expect(at(a, 'spec', 'volumes', 0, 'name')).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(a).toEqual(b);
  });

  it('storage re-defaults and drops the empty lists of built-in kinds', () => {
    expect(at(storedObject(pod({ containers: [container({ env: [] })] })), 'spec', 'containers', 0)).toEqual({ name: 'c', image: 'nginx:1.25', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} });
  });
});

const SIDECAR_MAP = `apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata: {name: sidecar}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  failurePolicy: Fail
  reinvocationPolicy: Never
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >-
        [JSONPatch{op: "add", path: "/spec/containers/-", value: Object.spec.containers{name: "side", image: "busybox"}}]
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        Object{metadata: Object.metadata{labels: {"pull": object.spec.containers[1].imagePullPolicy}}}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata: {name: sidecar}
spec: {policyName: sidecar}
`;

describe('MutatingAdmissionPolicy mutations are re-defaulted (dispatcher.go)', () => {
  const policies = loadPolicies({ name: 'sidecar.yaml', text: SIDECAR_MAP }).policies;
  const request = { object: pod({ containers: [container()] }), oldObject: null, operation: 'CREATE' as const, userInfo: {}, namespaceObject: null };

  it('with a defaulter, the second mutation sees the container the first one added with its defaults', () => {
    const result = apply(policies, request, { runtime: createRuntime({ defaulter: applyApiServerDefaults }) });
    expect(result.allowed).toBe(true);
    expect(at(result.object, 'metadata', 'labels')).toEqual({ pull: 'Always' });
    expect(at(result.object, 'spec', 'containers', 1, 'terminationMessagePolicy')).toBe('File');
  });

  it('without one (the default runtime, as upstream unit tests run), nothing is defaulted', () => {
    const result = apply(policies, request, { runtime: createRuntime() });
    expect(result.allowed).toBe(false);
  });
});

describe('transmute apply --apiserver-defaults', () => {
  it('prints the object as kubectl get shows it after creation', async () => {
    const dir = tempFiles({ 'map.yaml': SIDECAR_MAP, 'pod.yaml': 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  containers: [{name: c, image: "nginx:1.25"}]\n' });
    const plain = await run(['apply', '-p', join(dir, 'map.yaml'), '-r', join(dir, 'pod.yaml')]);
    expect(plain.code).toBe(1);
    const out = await run(['apply', '-p', join(dir, 'map.yaml'), '-r', join(dir, 'pod.yaml'), '--apiserver-defaults']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const stored = parse(out.stdout) as JsonObject;
    expect(at(stored, 'metadata', 'labels')).toEqual({ pull: 'Always' });
    expect(at(stored, 'spec')).toMatchObject({ serviceAccountName: 'default', priority: 0, dnsPolicy: 'ClusterFirst', enableServiceLinks: true });
    expect((at(stored, 'spec', 'tolerations') as JsonObject[]).map((t) => t.key)).toEqual(['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']);
    const help = await run(['apply', '--help']);
    expect(help.stdout).toContain('--apiserver-defaults');
  });
});
