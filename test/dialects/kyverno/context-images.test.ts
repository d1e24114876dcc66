/**
 * Kyverno's `images` context entry (src/dialects/kyverno/context-images.ts): what it holds, which kinds have
 * it, when it fails, and which object it is parsed from (the one the policy context was made from: the
 * request's in the webhook, each policy's start in the CLI, the trigger's for a mutate-existing target).
 */
import { describe, expect, it } from 'vitest';
import { contextImages, ImagesFailure } from '../../../src/dialects/kyverno/context-images.js';
import { mutateExisting } from '../../../src/dialects/kyverno/mutate-existing.js';
import { apply } from '../../../src/interpreter/index.js';
import type { JsonObject } from '../../../src/ir/json.js';
import { docs } from '../map/support.js';
import { kyvernoPolicies as parse } from '../map/kyverno-support.js';

function policy(name: string, rules: string): string {
  return `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: ${name}
  annotations: {pod-policies.kyverno.io/autogen-controllers: none}
spec:
  rules:
${rules}`;
}

const MATCH = `    match:
      any:
      - resources:
          kinds: [Pod]
`;

/** Rewrites every container's image to the mirror, from its own `images` entry. */
const MIRROR = `  - name: mirror
${MATCH}    mutate:
      foreach:
      - list: request.object.spec.containers
        patchStrategicMerge:
          spec:
            containers:
            - name: "{{ element.name }}"
              image: 'mirror.example.com/{{ images.containers."{{element.name}}".path }}:{{ images.containers."{{element.name}}".tag }}'
`;

const annotate = (rule: string, key: string): string => `  - name: ${rule}
${MATCH}    mutate:
      patchStrategicMerge:
        metadata:
          annotations:
            ${key}: "{{ images.containers.app.registry }}"
`;

const pod = (containers: JsonObject[], kind = 'Pod'): JsonObject => ({ apiVersion: 'v1', kind, metadata: { name: 'p', namespace: 'default' }, spec: { containers } });
const APP = pod([{ name: 'app', image: 'nginx:1.25' }]);

const annotations = (o: unknown): unknown => ((o as JsonObject).metadata as JsonObject).annotations;

describe('contextImages', () => {
  it('holds each container of the three lists by name, with the place of its image', () => {
    const object = { apiVersion: 'v1', kind: 'Pod', spec: { initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'app', image: `ghcr.io/org/app:2@sha256:${'ab'.repeat(32)}` }, { name: 'side', image: '  ' }] } };
    expect(contextImages(object)).toEqual({
      initContainers: { init: { registry: 'docker.io', name: 'busybox', path: 'busybox', tag: 'latest', reference: 'docker.io/busybox:latest', referenceWithTag: 'docker.io/busybox:latest', jsonPointer: '/spec/initContainers/0/image' } },
      containers: {
        app: { registry: 'ghcr.io', name: 'app', path: 'org/app', tag: '2', digest: `sha256:${'ab'.repeat(32)}`, reference: `ghcr.io/org/app@sha256:${'ab'.repeat(32)}`, referenceWithTag: 'ghcr.io/org/app:2', jsonPointer: '/spec/containers/0/image' },
      },
    });
  });

  it("reads a workload's pod template and a CronJob's job template, and no other kind", () => {
    const containers = [{ name: 'app', image: 'nginx' }];
    const deployment = { kind: 'Deployment', spec: { template: { spec: { containers } } } };
    const cronJob = { kind: 'CronJob', spec: { jobTemplate: { spec: { template: { spec: { containers } } } } } };
    expect((contextImages(deployment) as JsonObject).containers).toMatchObject({ app: { jsonPointer: '/spec/template/spec/containers/0/image' } });
    expect((contextImages(cronJob) as JsonObject).containers).toMatchObject({ app: { jsonPointer: '/spec/jobTemplate/spec/template/spec/containers/0/image' } });
    // Kyverno registers extractors for the built-in workloads only (pkg/utils/api/image.go).
    expect(contextImages({ kind: 'Rollout', spec: { template: { spec: { containers } } } })).toBeUndefined();
    expect(contextImages({ kind: 'PodTemplate', template: { spec: { containers } } })).toBeUndefined();
  });

  it('has no entry at all without an image, and fails on a nameless container or an image that does not parse', () => {
    expect(contextImages(pod([{ name: 'app' }]))).toBeUndefined();
    expect(contextImages(pod([]))).toBeUndefined();
    expect(contextImages(pod([{ image: 'nginx' }]))).toEqual(new ImagesFailure('invalid key'));
    const bad = contextImages(pod([{ name: 'app', image: 'nginx' }, { name: 'b', image: 'Nginx' }]));
    expect(bad).toBeInstanceOf(ImagesFailure);
    expect((bad as ImagesFailure).message).toMatch(/^invalid image 'Nginx' \(bad image: docker.io\/Nginx/);
    expect(contextImages({ kind: 'Pod', spec: { containers: 'x' } })).toEqual(new ImagesFailure('invalid type'));
  });
});

describe('images read several times in one evaluation', () => {
  it('hands every query a value of its own: what a rule does with one never reaches a later read', () => {
    const embed = `  - name: embed
${MATCH}    mutate:
      patchStrategicMerge:
        metadata:
          annotations:
            entry: "{{ images.containers.app }}"
  - name: change
${MATCH}    mutate:
      patchStrategicMerge:
        metadata:
          annotations:
            entry:
              registry: changed.example.com
`;
    const policies = parse(policy('twice', embed + annotate('read', 'registry')));
    for (const kyvernoContext of ['webhook', 'cli'] as const) {
      const r = apply(policies, { object: APP, operation: 'CREATE' }, { kyvernoContext, trace: false });
      expect(r.allowed).toBe(true);
      expect(annotations(r.object)).toMatchObject({ entry: { registry: 'changed.example.com', path: 'nginx', tag: '1.25' }, registry: 'docker.io' });
    }
  });

  it('keeps a container named __proto__ as an ordinary entry', () => {
    const images = contextImages(pod([{ name: '__proto__', image: 'nginx' }]));
    expect(images).not.toBeInstanceOf(ImagesFailure);
    const containers = (images as JsonObject).containers as JsonObject;
    expect(Object.keys(containers)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(containers)).toBe(Object.prototype);
  });
});

describe('the object `images` are parsed from', () => {
  it('is the one the policy began with, for every rule of the policy', () => {
    const policies = parse(policy('rewrite', MIRROR + annotate('note', 'registry')));
    for (const kyvernoContext of ['webhook', 'cli'] as const) {
      const r = apply(policies, { object: APP, operation: 'CREATE' }, { kyvernoContext });
      expect(r.allowed).toBe(true);
      expect((((r.object as JsonObject).spec as JsonObject).containers as JsonObject[])[0]!.image).toBe('mirror.example.com/nginx:1.25');
      expect(annotations(r.object)).toEqual({ registry: 'docker.io' });
    }
  });

  it("is the request's for every policy in the webhook, and each policy's start in the CLI", () => {
    const policies = [...parse(policy('rewrite', MIRROR)), ...parse(policy('later', annotate('note', 'registry')))];
    expect(annotations(apply(policies, { object: APP, operation: 'CREATE' }).object)).toEqual({ registry: 'docker.io' });
    expect(annotations(apply(policies, { object: APP, operation: 'CREATE' }, { kyvernoContext: 'cli' }).object)).toEqual({ registry: 'mirror.example.com' });
  });

  it('is none on a DELETE in the webhook, the old object in the CLI', () => {
    const policies = parse(
      policy(
        'on-delete',
        `  - name: r
    match:
      any:
      - resources:
          kinds: [Pod]
          operations: [DELETE]
    mutate:
      patchStrategicMerge:
        metadata:
          annotations:
            registry: "{{ images.containers.app.registry || 'none' }}"
`,
      ),
    );
    const request = { object: null, oldObject: APP, operation: 'DELETE' as const };
    expect(annotations(apply(policies, request).object)).toEqual({ registry: 'none' });
    expect(annotations(apply(policies, request, { kyvernoContext: 'cli' }).object)).toEqual({ registry: 'docker.io' });
  });

  it("fails a rule reading `images` where Kyverno's extraction fails, and a kind without images has none", () => {
    const policies = parse(policy('note', annotate('note', 'registry')));
    const bad = apply(policies, { object: pod([{ name: 'app', image: 'nginx' }, { name: 'x', image: 'Bad:Image' }]), operation: 'CREATE' });
    expect(bad.allowed).toBe(false);
    expect(bad.diagnostics.map((d) => d.message).join('\n')).toContain("invalid image 'Bad:Image'");
    // Only the rule reading `images` fails: one that does not is not reached by the extraction.
    const plain = parse(
      policy(
        'plain',
        `  - name: r
${MATCH}    mutate:
      patchStrategicMerge:
        metadata:
          labels:
            seen: "yes"
`,
      ),
    );
    expect(apply(plain, { object: pod([{ name: 'x', image: 'Bad:Image' }]), operation: 'CREATE' }).allowed).toBe(true);
  });

  it("is the trigger's for a mutate-existing target", () => {
    const text = policy(
      'existing',
      `  - name: r
    match:
      any:
      - resources:
          kinds: [Pod]
    mutate:
      targets:
      - apiVersion: v1
        kind: ConfigMap
        name: cm
        namespace: default
      patchStrategicMerge:
        data:
          registry: "{{ images.containers.app.registry }}"
`,
    );
    const trigger = pod([{ name: 'app', image: 'ghcr.io/org/app:1' }]);
    const target = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: {} };
    const out = mutateExisting(docs(text), { object: trigger, operation: 'CREATE' }, [target]);
    expect(out.results.map((r) => (r.result.object as JsonObject).data)).toEqual([{ registry: 'ghcr.io' }]);
  });
});
